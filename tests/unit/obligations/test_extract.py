"""The obligation register on real regulation text, three draftings: the ADGM AML rulebook
(numbered rules, paragraphs and items on their own lines), the GDPR (Markdown articles) and
the AI Act (numbered paragraphs with inline lists), each parsed and chunked as ingestion does,
then read back from the chunks."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest

from regintel.adapters.parsers import AutoParser
from regintel.demo.ai_act import AI_ACT_FILE, ai_act_markdown
from regintel.demo.corpus import GDPR_ARTICLES, RULEBOOKS, gdpr_markdown
from regintel.domain.coverage import ObligationRow
from regintel.domain.documents import DocStatus, DocType, Document, StoredChunk
from regintel.ingestion.chunking import chunk_document
from regintel.obligations.pages import rebuild_pages
from regintel.obligations.register import build_register

SHARED = Path(__file__).resolve().parents[4] / "shared" / "data"
if not SHARED.is_dir():
    SHARED = Path("/work/shared/data")
pytestmark = pytest.mark.skipif(not SHARED.is_dir(), reason="shared data not present")


def _register(data: bytes, filename: str) -> tuple[list[ObligationRow], list[StoredChunk]]:
    parsed = AutoParser().parse(data, filename)
    doc_id = uuid.uuid4()
    chunks = [StoredChunk(id=uuid.uuid4(), document_id=doc_id, **c.model_dump())
              for c in chunk_document(parsed)]
    document = Document(id=doc_id, title=filename, version="", doc_type=DocType.REGULATION,
                        status=DocStatus.READY, original_filename=filename,
                        mime_type=parsed.mime_type, size_bytes=len(data),
                        created_at=datetime.now(UTC), content_hash="-", file_path="-")
    return build_register(document, chunks), chunks


@pytest.fixture(scope="module")
def aml() -> tuple[list[ObligationRow], list[StoredChunk]]:
    return _register((SHARED / RULEBOOKS / "AML_VER09.211223.txt").read_bytes(), "aml.txt")


@pytest.fixture(scope="module")
def gdpr() -> tuple[list[ObligationRow], list[StoredChunk]]:
    return _register(gdpr_markdown(SHARED / GDPR_ARTICLES).encode(), "gdpr.md")


@pytest.fixture(scope="module")
def ai_act() -> tuple[list[ObligationRow], list[StoredChunk]]:
    return _register(ai_act_markdown(SHARED / AI_ACT_FILE).encode(), "ai_act.md")


def _one(rows: list[ObligationRow], rule: str, words: str) -> ObligationRow:
    found = [r for r in rows if r.rule == rule and words in r.text]
    assert len(found) == 1, [(r.rule, r.text[:80]) for r in rows if words in r.text]
    return found[0]


def _verbatim(rows: list[ObligationRow], chunks: list[StoredChunk]) -> None:
    pages = {p.number: p.text for p in rebuild_pages(chunks)}
    texts = {c.id: c.text for c in chunks}
    for row in rows:
        assert row.chunk_ids and all(c in texts for c in row.chunk_ids)
        page = pages[row.page or 1] if row.page else "\n".join(pages.values())
        assert row.text in page
        for item in row.items:
            assert item.text in page


def test_aml_rules_paragraphs_and_items(aml: tuple[list[ObligationRow], list[StoredChunk]]
                                        ) -> None:
    rows, chunks = aml
    assert len(rows) > 250 and all(r.rule for r in rows)
    _verbatim(rows, chunks)
    annual = _one(rows, "4.1.1.(4)", "must review the effectiveness")
    assert annual.actor == "A Relevant Person" and annual.strength == "mandatory"
    assert [(f.kind, f.value) for f in annual.facts if f.kind == "frequency"] == [
        ("frequency", 365.0)]
    # A paragraph on its own line after 4.1.1.(5) is 4.1.1.(6); its items keep their labels.
    review = _one(rows, "4.1.1.(6)", "must cover at least the following")
    assert [i.label for i in review.items] == ["(a)", "(b)", "(c)"]
    assert review.lead_in is not None and review.items[1].text.startswith("an analysis of all")
    never = _one(rows, "9.2.2", "must not")
    assert never.strength == "prohibition" and len(never.items) >= 2
    notify = _one(rows, "11.2.1.(5)", "must immediately notify")
    assert [c.kind for c in notify.conditions] == ["if"]
    assert any(f.kind == "deadline" and f.value == 0.0 for f in notify.facts)
    guidance = [r for r in rows if r.rule and ".Guidance" in r.rule]
    assert guidance and {r.strength for r in guidance} >= {"recommendation"}


def test_gdpr_articles(gdpr: tuple[list[ObligationRow], list[StoredChunk]]) -> None:
    rows, chunks = gdpr
    assert len(rows) > 300 and all(r.rule and r.rule.startswith("Article ") for r in rows)
    _verbatim(rows, chunks)
    breach = _one(rows, "Article 33", "not later than 72 hours")
    assert breach.actor == "the controller"
    deadline = [f for f in breach.facts if f.kind == "deadline" and f.value is not None]
    assert deadline and deadline[0].value == 3.0 and deadline[0].comparator == "within"
    # The items of an unlabelled list are its paragraphs, labelled "•" (no number made up).
    principles = _one(rows, "Article 5", "Personal data shall be:")
    assert len(principles.items) == 6 and {i.label for i in principles.items} == {"•"}
    assert principles.items[0].text.startswith("processed lawfully, fairly")
    # "shall mean" defines, it does not oblige.
    assert not any("shall mean" in r.text for r in rows)


def test_ai_act_paragraphs_and_inline_lists(
        ai_act: tuple[list[ObligationRow], list[StoredChunk]]) -> None:
    rows, chunks = ai_act
    assert len(rows) > 500 and all(r.rule for r in rows)
    _verbatim(rows, chunks)
    serious = _one(rows, "Article 26(5)", "identified a serious incident")
    assert serious.actor == "they" and serious.conditions[0].kind == "where"
    listed = [r for r in rows if r.rule and r.rule.startswith("Article 12(") and r.items]
    assert listed and all(i.label.startswith("(") for r in listed for i in r.items)
