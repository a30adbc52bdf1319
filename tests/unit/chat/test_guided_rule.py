"""The rule a guidance note explains, read from the chunks before it: the real AML rulebook
cut by the real chunker, and as ObliQA loads it (one passage per chunk, no numbers)."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID, uuid4

import pytest

from regintel.chat.llm.evidence_text import inquiry_input
from regintel.chat.offline import guided_rule
from regintel.chat.offline.compose import _guided_rule_lines
from regintel.chat.offline.ranking import sentences_of
from regintel.domain.documents import ChunkDraft, ChunkHit, StoredChunk
from regintel.ingestion.clauses import guided_rule as rule_number
from regintel.retrieval import list_context
from regintel.retrieval.evidence import CitationBook, verify
from tests.unit.chat.test_whole_list import AML, _chunks, _hit
from tests.unit.ingestion.test_rulebooks import load, needs_rulebooks

CANNOT = "Where, in relation to a customer, a Relevant Person is unable to conduct or complete"


@pytest.mark.parametrize(("label", "rule"), [
    ("8.7.1.Guidance.1", "8.7.1"),
    ("8.7.1.Guidance", "8.7.1"),
    ("5.13A.5.1.Guidance.2", "5.13A.5.1"),
    # A titled note is a topic's, after whichever rule precedes it (8.3.6 is on foundations).
    ("8.3.6.Guidance on Politically Exposed Persons (PEPs) and corruption.6", None),
    ("7.Guidance.4", None),  # a chapter's
    ("8.7.1.(1)", None),
    (None, None),
])
def test_a_guidance_label_names_the_rule_it_explains(label: str | None,
                                                     rule: str | None) -> None:
    assert rule_number(label) == rule


def _guidance_and_before(chunks: list[ChunkDraft]) -> list[ChunkHit]:
    """The chunk of 8.7.1.Guidance.1 and the two before it, as list_context fetches them."""
    at = next(i for i, c in enumerate(chunks) if c.clause == "8.7.1.Guidance.1")
    return [_hit(c) for c in chunks[at - 2:at + 1]]


@needs_rulebooks
def test_the_rule_is_found_in_the_chunks_before_its_guidance() -> None:
    hits = _guidance_and_before(_chunks())
    found = guided_rule.find(hits, hits[-1], "8.7.1.Guidance.1")
    assert found is not None and found.clause == "8.7.1.(1)"
    assert found.text.startswith(CANNOT) and found.text.endswith("where appropriate:")
    assert verify(found.text, found.hit.text)
    # Not at hand (only the guidance's chunk), or no rule's guidance: nothing.
    assert guided_rule.find(hits[-1:], hits[-1], "8.7.1.Guidance.1") is None
    assert guided_rule.find(hits, hits[-1], "8.7.1.(1)") is None
    other = hits[-1].model_copy(update={"document_id": uuid4()})
    assert guided_rule.find(hits, other, "8.7.1.Guidance.1") is None  # another document's


@needs_rulebooks
def test_an_answer_of_guidance_alone_is_given_its_rule_whole_each_line_cited() -> None:
    hits = _guidance_and_before(_chunks())
    guidance = [s for s in sentences_of(hits[-1:]) if "should" in s.text]
    assert guidance and not any(s.binds for s in guidance)
    book = CitationBook()
    lines = _guided_rule_lines(guidance, hits, book)
    assert lines[0].startswith(f"- AML Rules, 8.7.1.(1): {CANNOT}") and lines[0].endswith("[1]")
    assert [line.split()[1] for line in lines[1:]] == ["(a)", "(b)", "(c)", "(d)", "(e)", "(f)"]
    assert "Suspicious Activity/Transaction Report" in lines[-1]
    texts = {h.chunk_id: h.text for h in hits}
    assert len(book.citations) == 7 and book.dropped == 0
    assert all(verify(c.quote, texts[c.chunk_id]) for c in book.citations if c.chunk_id)
    assert _guided_rule_lines(guidance, hits[-1:], CitationBook()) == []  # rule not at hand


@needs_rulebooks
def test_a_rule_given_one_passage_per_chunk_is_found_by_the_chunk_name() -> None:
    """ObliQA's passages carry their number in their name only ("4.7.1", then its
    guidance); the rule's first line is its opening."""
    text = load(AML).pages[0].text
    rule = text[text.index("8.4.1\tWhere a Relevant Person") + 6:text.index("8.4.1.Guidance\t")]
    note = text[text.index("8.4.1.Guidance.1.\t") + 18:text.index("8.4.1.Guidance.2.")]
    hits = [_hit(ChunkDraft(ordinal=n, text=t, page_start=1, page_end=1, char_start=0,
                            char_end=len(t), clause=c))
            for n, (t, c) in enumerate([(rule, "8.4.1"), (note, "8.4.1.Guidance.1")])]
    found = guided_rule.find(hits, hits[1], "8.4.1.Guidance.1")
    assert found is not None and found.clause == "8.4.1" and found.hit is hits[0]
    assert found.text.startswith("Where a Relevant Person") and verify(found.text, rule)


class _Index:
    """The chunks before each chunk, as the Postgres index gives them."""

    def __init__(self, chunks: Sequence[ChunkHit]) -> None:
        self.chunks = list(chunks)
        self.asked: list[UUID] = []

    async def preceding(self, tenant_id: UUID, chunk_ids: Sequence[UUID],
                        depth: int) -> dict[UUID, list[StoredChunk]]:
        self.asked += chunk_ids
        found: dict[UUID, list[StoredChunk]] = {}
        for at, hit in enumerate(self.chunks):
            if hit.chunk_id in chunk_ids:
                found[hit.chunk_id] = [
                    StoredChunk(**c.model_dump(include=set(StoredChunk.model_fields) - {"id"}),
                                id=c.chunk_id)
                    for c in self.chunks[max(0, at - depth):at]]
        return found

    async def following(self, tenant_id: UUID, chunk_ids: Sequence[UUID],
                        depth: int) -> dict[UUID, list[StoredChunk]]:
        return {}


@needs_rulebooks
async def test_the_chunks_before_a_guidance_hit_are_fetched_with_the_hits() -> None:
    hits = _guidance_and_before(_chunks())
    index = _Index(hits)
    guidance = hits[-1].model_copy(update={"score": 0.7})
    added = await list_context.complete(index, uuid4(), [guidance])  # type: ignore[arg-type]
    assert index.asked == [guidance.chunk_id]
    assert [h.chunk_id for h in added] == [h.chunk_id for h in hits[:2]]
    assert all(h.completes == guidance.chunk_id and h.score == 0 for h in added)
    assert guided_rule.find([*added, guidance], guidance, "8.7.1.Guidance.1") is not None


@needs_rulebooks
def test_a_model_asked_what_is_required_is_shown_the_rule_first() -> None:
    """The LLM engine's evidence: the searched hits, and before them the chunks that hold
    the rule the best hit's guidance explains - only when the question asks what is
    required."""
    hits = _guidance_and_before(_chunks())
    guidance = hits[-1].model_copy(update={"score": 0.7})
    fetched = [h.model_copy(update={"score": 0.0, "completes": guidance.chunk_id})
               for h in hits[:2]]
    top, user = inquiry_input("What must a Relevant Person do if it cannot complete CDD?",
                               [guidance, *fetched])
    assert top[-1] is guidance and len(top) >= 2
    assert any(CANNOT in h.text for h in top[:-1])
    assert "Suspicious Activity/Transaction Report under Rule" in user  # item (f)
    assert user.index(CANNOT) < user.index("8.7.1.Guidance.1.")
    top, _ = inquiry_input("What does the guidance say about incomplete CDD?",
                            [guidance, *fetched])
    assert top == [guidance]
