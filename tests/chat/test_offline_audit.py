"""The offline audit (the coverage matrix, obligations.auditor) on real documents: the demo
policy (PDF) against the ADGM AML and General rulebooks, ingested through the real pipeline
(the session corpus of tests/chat/conftest.py) and scored against the gaps planted in it
(tests/data/aml_policy_gaps.json); emails in text mode; the demo corpus loader; the planted
gaps of the development policies.

Run with ``-s`` to see the measured recall, precision and time."""

from __future__ import annotations

import itertools
import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from uuid import UUID

import pymupdf
import pytest
from research.audit_dev.dev_policies import DEV_POLICIES

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.adapters.postgres.database import Database
from regintel.bench.audit import evaluate_audit, format_evaluation, load_gaps
from regintel.container import Container
from regintel.demo.corpus import DEMO_CORPUS, GDPR_TITLE, load_demo_corpus
from regintel.domain.chat import SEVERITY_ORDER, AuditResult
from regintel.domain.documents import DocStatus, Document
from regintel.errors import ConfigurationError, InvalidRequest
from regintel.obligations.auditor import MAX_FINDINGS, MatrixAuditor
from regintel.ports.embedder import Embedder
from regintel.retrieval.evidence import CitationBook, normalise, verify
from regintel.retrieval.unit_vectors import UnitVectors
from tests.chat.conftest import POLICY_PDF, RULEBOOKS, Corpus
from tests.chat.test_unit_vectors import Counting
from tests.contract.library.conftest import build_library

GAPS = Path(__file__).resolve().parents[1] / "data" / "aml_policy_gaps.json"
POLICY_SOURCE = POLICY_PDF.parents[1] / "aml_policy.md"
# A floor under the demo policy's recall, only to catch regressions: the engine is developed on
# the development policies (research/audit_dev/dev_policies.py), never on this one. Measured once
# when the matrix became the one engine (29 November 2026, issue 36): 4 of 14 planted gaps on the
# AML rules (0.286), precision 0.211; the rules engine it replaced, built around this rulebook,
# had found 10 of 14 at 0.333 here, but 18 of 49 at 0.13 on policies it had not been built on (the
# matrix: 20 of 49 at 0.65). The figure is in docs/measurements.md.
MIN_RECALL = 0.25
# The DESIGN budget is 10 s on this machine; the bound here only catches a runaway.
MAX_SECONDS = 60


@dataclass
class Audit:
    container: Container
    embedder: LocalEmbedder

    def auditor(self, memo: UnitVectors | None = None,
                embedder: Embedder | None = None) -> MatrixAuditor:
        return MatrixAuditor(registers=self.container.registers,
                             index=self.container.chunk_index,
                             embedder=embedder or self.embedder, memo=memo)

    async def run(self, corpus: Corpus, targets: list[Document], *,
                  source: Document | None = None, text: str | None = None,
                  memo: UnitVectors | None = None,
                  embedder: Embedder | None = None) -> tuple[AuditResult, CitationBook, float]:
        book = CitationBook()
        auditor = self.auditor(memo, embedder)
        started = time.perf_counter()
        if source is not None:
            result = (await auditor.audit(corpus.tenant_id, targets, source, book=book)).result
        else:
            result = (await auditor.audit_text(corpus.tenant_id, targets, text or "",
                                               book=book)).result
        return result, book, time.perf_counter() - started


@pytest.fixture(scope="session")
def audit(container: Container, embedder: LocalEmbedder) -> Audit:
    return Audit(container, embedder)


@pytest.fixture(scope="session")
async def policy_audit(audit: Audit, corpus: Corpus) -> tuple[AuditResult, CitationBook, float]:
    """The demo audit as a user meets it: the documents prepared by their ingestion's
    follow-up (MatrixAuditor.prepare), then audited (the time is the audit's alone)."""
    memo = UnitVectors()
    for document in (corpus.aml, corpus.gen, corpus.policy):
        await audit.auditor(memo).prepare(corpus.tenant_id, document)
    return await audit.run(corpus, [corpus.aml, corpus.gen], source=corpus.policy, memo=memo)


async def test_policy_audit_finds_the_planted_gaps(
        policy_audit: tuple[AuditResult, CitationBook, float], corpus: Corpus) -> None:
    result, _, seconds = policy_audit
    gaps = load_gaps(GAPS)
    scores = evaluate_audit(result, gaps, target_id=corpus.aml.id)
    overall = evaluate_audit(result, gaps)
    print(f"\npolicy audit: {seconds:.1f} s, {len(result.findings)} findings; AML: "
          f"{format_evaluation(scores)}; precision over both targets {overall['precision']}")
    assert scores["recall"] >= MIN_RECALL, scores
    assert seconds < MAX_SECONDS
    assert result.mode == "policy" and result.targets_checked == 2
    assert result.overall_status == "Major Violations"


async def test_a_repeated_audit_reuses_the_regulations_vectors(
        policy_audit: tuple[AuditResult, CitationBook, float], audit: Audit,
        corpus: Corpus) -> None:
    """The container keeps the vectors of the regulations' obligations and of the policy's
    clauses between audits; the findings are the ones a fresh audit gives."""
    memo = UnitVectors()
    counting = Counting(audit.embedder)
    first, _, _ = await audit.run(corpus, [corpus.aml, corpus.gen], source=corpus.policy,
                                  memo=memo, embedder=counting)
    kept, embedded = len(memo), counting.texts
    again, _, _ = await audit.run(corpus, [corpus.aml, corpus.gen], source=corpus.policy,
                                  memo=memo, embedder=counting)
    assert kept > 300 and len(memo) == kept  # the same units read: nothing new to keep
    assert embedded >= kept and counting.texts == embedded  # nothing embedded again
    assert first.findings == again.findings == policy_audit[0].findings


async def test_an_audit_of_prepared_documents_embeds_no_unit(
        policy_audit: tuple[AuditResult, CitationBook, float], audit: Audit,
        corpus: Corpus) -> None:
    """Each document's ingestion follow-up (MatrixAuditor.prepare) embeds what an audit reads
    of it - a regulation's obligations, a policy's clauses - so the first audit embeds
    nothing, and its findings are those of an unprepared audit."""
    memo = UnitVectors()
    preparing = Counting(audit.embedder)
    for document in (corpus.aml, corpus.gen, corpus.policy):
        await audit.auditor(memo, preparing).prepare(corpus.tenant_id, document)
    assert preparing.texts == len(memo) > 1000
    counting = Counting(audit.embedder)
    prepared, _, _ = await audit.run(corpus, [corpus.aml, corpus.gen], source=corpus.policy,
                                     memo=memo, embedder=counting)
    assert counting.texts == 0 and len(memo) == preparing.texts
    assert prepared.findings == policy_audit[0].findings


async def test_policy_audit_quotes_are_verbatim_and_cited(
        policy_audit: tuple[AuditResult, CitationBook, float], audit: Audit,
        corpus: Corpus) -> None:
    result, book, _ = policy_audit
    citations = {c.n: c for c in book.citations}
    index = audit.container.chunk_index
    stored = await index.fetch(corpus.tenant_id,
                               [c.chunk_id for c in citations.values() if c.chunk_id])
    fabricated = 0
    for finding in result.findings:
        assert finding.citations and set(finding.citations) <= set(citations)
        target = citations[finding.citations[0]]
        chunk, document = stored[target.chunk_id]  # type: ignore[index]
        fabricated += not verify(finding.target_quote, chunk.text)
        assert document.id == finding.target_doc_id
        if finding.source_quote is not None:
            source = citations[finding.citations[1]]
            chunk, document = stored[source.chunk_id]  # type: ignore[index]
            fabricated += not verify(finding.source_quote, chunk.text)
            assert document.id == corpus.policy.id
        assert 0 <= finding.confidence_score <= 1
        assert finding.target_clause and finding.suggestion and finding.consequence
    assert fabricated == 0 and book.dropped == 0


async def test_policy_audit_is_ordered_and_bounded(
        policy_audit: tuple[AuditResult, CitationBook, float], corpus: Corpus) -> None:
    result, _, _ = policy_audit
    order = [corpus.aml.id, corpus.gen.id]
    keys = [(order.index(f.target_doc_id), SEVERITY_ORDER.index(f.severity))
            for f in result.findings]
    assert keys == sorted(keys)
    for target in order:
        mine = [f for f in result.findings if f.target_doc_id == target]
        # Only what the engine proves is a finding: a contradiction, never an omission.
        assert len(mine) <= MAX_FINDINGS and all(f.kind == "conflict" for f in mine)
        assert len({(f.target_clause, f.kind) for f in mine}) == len(mine)  # no duplicates
    assert result.summary.startswith("Coverage matrix:")


INTERNAL_EMAIL = ("Hi team, to win the new client quickly we will not screen him against any "
                  "sanctions lists, and he can send his ID documents next month. No need to "
                  "check where his funds come from. Please don't mention anything to "
                  "compliance.")


async def test_an_email_that_skips_a_required_check_breaks_the_rule_that_requires_it(
        audit: Audit, corpus: Corpus) -> None:
    """"We will not screen him against any sanctions lists" sets aside the duty to review
    customers against the lists (AML 8.6.3); the finding quotes the email verbatim."""
    result, book, _ = await audit.run(corpus, [corpus.aml], text=INTERNAL_EMAIL)
    by_clause = {f.target_clause: f for f in result.findings}
    assert "8.6.3" in by_clause, by_clause
    screening = by_clause["8.6.3"]
    assert screening.kind == "conflict" and "will not screen him" in (
        screening.source_quote or "")
    assert result.overall_status != "No issues found"
    for finding in result.findings:
        assert verify(finding.source_quote or "", INTERNAL_EMAIL)
    assert book.dropped == 0 and len(book.citations) == len(result.findings)


async def test_text_audit_of_a_compliant_text_is_clean(audit: Audit, corpus: Corpus) -> None:
    text = ("Before we open your account we will need a copy of your passport and proof of "
            "address, and we will ask about the source of the funds you invest.")
    result, _, _ = await audit.run(corpus, [corpus.aml], text=text)
    assert result.findings == [] and result.overall_status == "No issues found"


async def test_an_audit_needs_a_source_and_at_most_five_targets(audit: Audit,
                                                                corpus: Corpus) -> None:
    with pytest.raises(InvalidRequest):
        await audit.run(corpus, [], text="Guaranteed returns.")
    with pytest.raises(InvalidRequest):
        await audit.run(corpus, [corpus.aml] * 6, text="Guaranteed returns.")
    with pytest.raises(InvalidRequest):
        await audit.run(corpus, [corpus.aml], text="word " * 1001)


# -- the planted gaps are real ---------------------------------------------------------------
@pytest.mark.parametrize(("gaps_file", "source_file", "pdf_file"), [
    (GAPS, POLICY_SOURCE, POLICY_PDF),  # the test set: the demo policy
    # the development sets the engine is built and tuned on
    *[(d.gaps, d.source, d.pdf) for d in DEV_POLICIES.values()],
], ids=["falcon-crest", *[f"{name}-dev" for name in DEV_POLICIES]])
def test_planted_gaps_quote_the_rulebook_and_the_policy(gaps_file: Path, source_file: Path,
                                                        pdf_file: Path) -> None:
    rulebook = (RULEBOOKS / "AML_VER09.211223.txt").read_text(encoding="utf-8")
    source = source_file.read_text(encoding="utf-8")
    with pymupdf.open(pdf_file) as pdf:
        pdf_text = normalise(" ".join(page.get_text() for page in pdf))
    gaps = load_gaps(gaps_file)
    # the demo policy plants 10-14 gaps; a development policy may plant fewer once the rules it
    # shared with the demo policy were made compliant (see the header of heron_policy.md)
    fewest = 10 if gaps_file == GAPS else 8
    assert fewest <= len(gaps) <= 14 and len({g["id"] for g in gaps}) == len(gaps)
    assert {g["kind"] for g in gaps} == {"missing", "contradiction"}
    for gap in gaps:
        for part in gap["obligation"].split(" … "):
            assert part in rulebook, gap["id"]
        assert re.search(rf"^{re.escape(gap['rule'].split('(')[0].rstrip('.'))}", rulebook,
                         re.M), gap["id"]
        # numbered as the rulebook numbers it ("7.1.1.(3)(d)"), as the audit cites it
        assert not re.match(r"\d+\.\d+\.\d+\(\d", gap["rule"]), gap["id"]
        if gap["kind"] == "contradiction":
            assert gap["policy_text"] and gap["policy_text"] in source, gap["id"]
            assert normalise(gap["policy_text"]) in pdf_text, gap["id"]
            assert gap["policy_clause"] and gap["match_terms"]
        else:
            assert gap["policy_text"] is None
            for term in gap["match_terms"]:  # what is missing is not in the policy
                assert term.lower() not in source.lower(), (gap["id"], term)


def test_the_development_set_is_apart_from_the_test_set() -> None:
    """Tuning on Oryx says nothing about Falcon Crest only if they share no planted rule and
    no sentence (of ten words or more: a glossary line may well coincide)."""
    rules = [{g["rule"] for g in load_gaps(path)}
             for path in (GAPS, *[d.gaps for d in DEV_POLICIES.values()])]
    assert all(not a & b for a, b in itertools.combinations(rules, 2))

    def sentences(path: Path) -> set[str]:
        parts = re.split(r"(?<=[.;:])\s", path.read_text(encoding="utf-8"))
        return {normalise(p) for p in parts if len(p.split()) >= 10}

    for dev_policy in DEV_POLICIES.values():
        assert not sentences(POLICY_SOURCE) & sentences(dev_policy.source)


def test_the_development_policy_pdf_is_built_from_its_source() -> None:
    from regintel.demo.build_policy import render

    for dev in DEV_POLICIES.values():
        assert render(dev.source.read_text(encoding="utf-8"), dev.letterhead) == \
            dev.pdf.read_bytes()
        with pymupdf.open(dev.pdf) as pdf:
            assert 8 <= pdf.page_count <= 20
            assert pdf.metadata is not None and pdf.metadata["author"] == dev.letterhead.author


def test_the_policy_pdf_is_built_from_its_source() -> None:
    from regintel.demo.build_policy import render

    assert render(POLICY_SOURCE.read_text(encoding="utf-8")) == POLICY_PDF.read_bytes()
    with pymupdf.open(POLICY_PDF) as pdf:
        assert 15 <= pdf.page_count <= 20
        text = pdf[2].get_text()
    assert "\ufb01" not in text and "1.1 Falcon Crest Capital Ltd" in text


# -- the demo corpus loader --------------------------------------------------------------------
def _small_shared_data(shared: Path) -> Path:
    """A shared data directory with the files the demo corpus reads, cut short."""
    (shared / "obliqa" / "rulebooks_txt").mkdir(parents=True)
    (shared / "regulations").mkdir()
    for name in ("AML_VER09.211223.txt", "GEN_VER08.181223.txt"):
        text = (RULEBOOKS / name).read_text(encoding="utf-8")[:3000]
        (shared / "obliqa" / "rulebooks_txt" / name).write_text(text, encoding="utf-8")
    articles = (RULEBOOKS.parents[1] / "regulations" / "gdpr_articles.jsonl").read_text(
        encoding="utf-8").splitlines()[:3]
    (shared / "regulations" / "gdpr_articles.jsonl").write_text("\n".join(articles),
                                                                encoding="utf-8")
    return shared


async def test_demo_corpus_loads_once(database: Database, embedder: LocalEmbedder,
                                      tmp_path: Path) -> None:
    shared = _small_shared_data(tmp_path / "shared")
    library = await build_library(database, embedder, tmp_path / "files")
    try:
        tenant: UUID = await library.documents.ensure_tenant("demo")
        first = await load_demo_corpus(library.ingestion, tenant, shared)
        assert [s.created for s in first] == [True] * len(DEMO_CORPUS)
        await library.queue.run_worker(wait=False)
        again = await load_demo_corpus(library.ingestion, tenant, shared)
        assert [s.created for s in again] == [False] * len(DEMO_CORPUS)
        documents = {d.title: d for d in await library.documents.list(tenant)}
        assert len(documents) == len(DEMO_CORPUS)
        for doc in DEMO_CORPUS:
            stored = documents[doc.title]
            assert stored.status is DocStatus.READY and stored.doc_type is doc.doc_type
            assert stored.set is not None and stored.set.name == doc.set_name
        gdpr = documents[GDPR_TITLE]
        chunks = await library.index.document_chunks(tenant, gdpr.id)
        text = " ".join(c.text for c in chunks)
        assert "CC BY 4.0" in text and "GDPRtEXT" in text
        assert "## Article 1 Subject-matter and objectives" in text
        assert {"Article 2", "Article 3"} <= {c.clause for c in chunks}
        assert documents["Falcon Crest Capital Ltd — AML/CFT Policy"].page_count == 16
    finally:
        await library.queue.close()
    with pytest.raises(ConfigurationError, match="demo corpus needs"):
        await load_demo_corpus(library.ingestion, tenant, tmp_path / "nowhere")


@pytest.mark.parametrize("gaps_file", [GAPS, *[d.gaps for d in DEV_POLICIES.values()]],
                         ids=["falcon-crest", *[f"{name}-dev" for name in DEV_POLICIES]])
def test_gaps_json_is_valid(gaps_file: Path) -> None:
    rows = json.loads(gaps_file.read_text(encoding="utf-8"))
    assert all(set(r) == {"id", "kind", "rule", "obligation", "policy_clause", "policy_text",
                          "match_terms"} for r in rows)


SKIP_EMAIL = ("Hi team, the client is in a hurry and the deal is big. Let's skip the CDD this "
              "once and not tell compliance; we can sort the paperwork out later.")


async def test_an_email_that_sets_a_required_act_aside_is_a_finding_never_compliant(
        audit: Audit, corpus: Corpus) -> None:
    """The act the text sets aside ("skip the CDD", "not tell compliance") is read against
    the rules that require it, whatever words the rulebook uses for it."""
    result, book, _ = await audit.run(corpus, [corpus.aml], text=SKIP_EMAIL)
    assert result.overall_status != "No issues found" and result.findings
    said = " ".join(f.source_quote or "" for f in result.findings)
    assert "skip the CDD" in said
    assert all(verify(f.source_quote or "", SKIP_EMAIL) for f in result.findings)
    assert book.dropped == 0


async def test_a_text_no_rule_matches_is_never_called_clean(audit: Audit,
                                                            corpus: Corpus) -> None:
    text = "The quarterly offsite will be held in the main conference room on Thursday."
    result, _, _ = await audit.run(corpus, [corpus.aml], text=text)
    assert result.findings == [] and result.rules_checked == []
    assert "Compliant" not in result.summary
    assert "not a finding that the text complies" in result.summary
