"""The offline audit on real documents: the demo policy (PDF) against the ADGM AML and General
rulebooks, ingested through the real pipeline (the session corpus of tests/chat/conftest.py),
scored against the gaps planted in the policy (tests/data/aml_policy_gaps.json); a marketing
email in text mode; the facts the conflicts are read from; the demo corpus loader; the
development policy the audit's thresholds are tuned on (bench/audit_tuning.py) and its gaps
(tests/data/oryx_policy_gaps.json).

Run with ``-s`` to see the measured recall, precision and time."""

from __future__ import annotations

import itertools
import json
import re
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from uuid import UUID

import numpy as np
import pymupdf
import pytest

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.adapters.postgres.chunk_index import PostgresChunkIndex
from regintel.adapters.postgres.database import Database
from regintel.adapters.postgres.documents_repo import PostgresDocumentStore
from regintel.bench.audit import evaluate_audit, finds, format_evaluation, load_gaps
from regintel.bench.audit_tuning import MemoEmbedder, Point, choose, grid
from regintel.bench.dev_policies import DEV_POLICIES
from regintel.chat.evidence import CitationBook, normalise, verify
from regintel.chat.offline import conflicts, facets
from regintel.chat.offline.audit import MAX_FINDINGS, MAX_GAPS, AuditInputs, run_audit
from regintel.chat.offline.audit_units import AuditPreparation
from regintel.chat.offline.unit_vectors import UnitVectors
from regintel.demo.corpus import DEMO_CORPUS, GDPR_TITLE, load_demo_corpus
from regintel.domain.chat import SEVERITY_ORDER, AuditResult
from regintel.domain.documents import DocStatus, Document
from regintel.errors import ConfigurationError, InvalidRequest
from regintel.ports.embedder import Embedder, Vectors
from regintel.retrieval.hybrid import HybridRetriever
from tests.chat.conftest import POLICY_PDF, RULEBOOKS, Corpus
from tests.chat.test_unit_vectors import Counting
from tests.contract.library.conftest import build_library

GAPS = Path(__file__).resolve().parents[1] / "data" / "aml_policy_gaps.json"
POLICY_SOURCE = POLICY_PDF.parents[1] / "aml_policy.md"
# The target is a recall of 0.8 on this (test) policy. It is NOT met. First engine,
# thresholds tuned on the development policy (drafts.py; bench/audit_tuning.py): the
# single evaluation on Falcon Crest found 10 of 14 planted gaps (0.714; precision 0.435 on
# the AML findings; missed G08, G10, G12, G13). The thresholds read off this policy found 12
# - tuning on the data reported on. Second engine (the policy's statements of fact looked
# up across the whole regulation, clauses worded like the rule read for contradictions,
# facts read part by part, annual due dates, "may only" conditions; re-tuned on Oryx only,
# where it raised recall from 4/13 to 10/13): its single evaluation here found the same 10
# of 14 (0.714), precision 0.476 on the AML findings (10/21; 0.263 over both targets), no
# fabricated quote, the same four missed. Third engine (items a policy list leaves out of a
# rule's list, every heading searched, weaker timing wordings; Oryx 10/13 → 12/13, thresholds
# unchanged): its single evaluation here again found the same 10 of 14 (0.714), precision
# 0.455 (10/22), 7.8 s. Fourth engine (acts: before/after the relationship starts, a
# forbidden act allowed or done, a required measure made replaceable; developed on a second
# development policy, Sandgrouse, 2/14 → 8/14, Oryx unchanged at 12/13): 10 of 14, precision
# 0.417 (10/24), 7.1 s; and once more after the retrieval model gained its coverage features
# (a change made for ObliQA, not for the audit): 10 of 14, precision 0.40 (10/25), 7.2 s;
# and once after a guard against false prohibitions (a verb in a time or condition clause):
# the same 10 of 14, precision 0.40; and once after an omission was reported on the rule's
# item the policy comes least close to (Sandgrouse 8/14 → 9/14): 10 of 14, precision 0.40
# (10/25), 9.6 s on a busy machine; and once after a prompt duty left to a periodic round
# became a conflict (the "cycle" kind, from the third development policy, Kestrel, whose
# blind audit found 4 of 14) and a section's relevance stopped being marked down by a weak
# hit: 10 of 14, precision 0.385 (10/26), 7.1 s; and once after six more kinds of
# contradiction were read (a responsibility passed to a provider, a duty before a launch put
# after it, a risk factor set aside, going ahead where something cannot be done, a thing the
# rule excludes accepted, a report to the MLRO left to someone's decision; developed on
# Kestrel 5/14 → 10/14 and Sandgrouse 9/14 → 10/14, Oryx unchanged): 10 of 14, precision
# 0.37 (10/27), 8.7 s; and once after a theme's next hits were scored by their rank under
# its best and headings' initials were searched in the regulation's words (Kestrel 10/14 →
# 11/14, the others unchanged): 10 of 14, precision 0.385 (10/26), 14.9 s while the test
# suite ran beside it.
# The same four missed each time: the dev gains did not carry over to this policy's gaps. This
# floor, just below the measured 0.714, only guards against regressions; raising it needs a
# better engine, not thresholds or rules fitted to Falcon.
MIN_RECALL = 0.7
# The audit of the policy against both rulebooks took 9.6 s in that evaluation, on a shared
# 2-core machine under load (about 7 s idle before the second engine, which embeds about a
# third more obligations; DESIGN budget 10 s); the bound here only catches a runaway.
MAX_SECONDS = 60
EMAIL = """Subject: Open your Falcon Crest account in five minutes

Dear investor,

Opening an account with Falcon Crest Capital has never been easier. No ID needed and no \
paperwork: just send us your name and we will set you up today.
We accept funds from any source, and we will never ask where your money comes from.
Our Gulf Opportunities Fund offers guaranteed returns of 12% a year with no risk to your capital.
Accounts can be held anonymously or in any name you choose, so your investments stay private.

Call your relationship manager today to get started."""


@dataclass
class Audit:
    index: PostgresChunkIndex
    retriever: HybridRetriever
    embedder: LocalEmbedder

    async def run(self, corpus: Corpus, targets: list[Document], *,
                  source: Document | None = None, text: str | None = None,
                  memo: UnitVectors | None = None,
                  embedder: Embedder | None = None) -> tuple[AuditResult, CitationBook, float]:
        book = CitationBook()
        started = time.perf_counter()
        result = await run_audit(AuditInputs(corpus.tenant_id, targets, source, text),
                                 retriever=self.retriever, index=self.index,
                                 embedder=embedder or self.embedder, book=book, memo=memo)
        return result, book, time.perf_counter() - started


@pytest.fixture(scope="session")
async def audit(corpus: Corpus, embedder: LocalEmbedder) -> AsyncIterator[Audit]:
    database = Database(corpus.url, pool_size=4)
    index = PostgresChunkIndex(database)
    yield Audit(index, HybridRetriever(index, embedder), embedder)
    await database.dispose()


@pytest.fixture(scope="session")
async def policy_audit(audit: Audit, corpus: Corpus) -> tuple[AuditResult, CitationBook, float]:
    return await audit.run(corpus, [corpus.aml, corpus.gen], source=corpus.policy)


async def test_policy_audit_finds_the_planted_gaps(
        policy_audit: tuple[AuditResult, CitationBook, float], corpus: Corpus) -> None:
    result, _, seconds = policy_audit
    gaps = load_gaps(GAPS)
    scores = evaluate_audit(result, gaps, target_id=corpus.aml.id)
    overall = evaluate_audit(result, gaps)
    print(f"\npolicy audit: {seconds:.1f} s, {len(result.findings)} findings, "
          f"{result.themes_analyzed} themes; AML: {format_evaluation(scores)}; precision over "
          f"both targets {overall['precision']}")
    assert scores["recall"] >= MIN_RECALL, scores
    assert seconds < MAX_SECONDS
    assert result.mode == "policy" and result.targets_checked == 2
    assert result.overall_status == "Major Violations"
    # A contradiction is found as one (the planted contradictions are the engine's best case).
    contradictions = [g for g in gaps if g["kind"] == "contradiction"]
    assert sum(any(f.kind == "conflict" and finds(f, g) for f in result.findings)
               for g in contradictions) >= MIN_RECALL * len(contradictions)


async def test_a_repeated_audit_reuses_the_regulations_vectors(
        policy_audit: tuple[AuditResult, CitationBook, float], audit: Audit,
        corpus: Corpus) -> None:
    """The container keeps the unit vectors of the targets and of the policy between audits
    (three quarters of an audit's time); the findings are the ones a fresh audit gives."""
    memo = UnitVectors()
    counting = Counting(audit.embedder)  # the searches embed through the retriever's own
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
    """Each document's ingestion follow-up (audit_units.AuditPreparation) embeds what an
    audit may read of it - a regulation as a target, a policy as the source - so the first
    audit finds every unit it reads, and its findings are those of an unprepared audit."""
    memo = UnitVectors()
    database = Database(corpus.url, pool_size=2)
    try:
        preparing = Counting(audit.embedder)
        preparation = AuditPreparation(documents=PostgresDocumentStore(database),
                                       index=audit.index, embedder=preparing, memo=memo)
        for document in (corpus.aml, corpus.gen, corpus.policy):
            await preparation.run_job(str(corpus.tenant_id), str(document.id))
    finally:
        await database.dispose()
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
    stored = await audit.index.fetch(corpus.tenant_id,
                                     [c.chunk_id for c in citations.values() if c.chunk_id])
    fabricated = 0
    for finding in result.findings:
        assert finding.citations and set(finding.citations) <= set(citations)
        target = citations[finding.citations[0]]
        chunk, document = stored[target.chunk_id]  # type: ignore[index]
        fabricated += not verify(finding.target_quote, chunk.text)
        assert document.id == finding.target_doc_id and target.page == finding.target_page
        if finding.source_quote is not None:
            source = citations[finding.citations[1]]
            chunk, document = stored[source.chunk_id]  # type: ignore[index]
            fabricated += not verify(finding.source_quote, chunk.text)
            assert document.id == corpus.policy.id
        assert 0 <= finding.confidence_score <= 1 and finding.theme
        assert finding.target_clause and finding.target_clause in finding.consequence
        assert finding.suggestion and finding.consequence
    assert fabricated == 0 and book.dropped == 0


async def test_policy_audit_is_ordered_and_bounded(
        policy_audit: tuple[AuditResult, CitationBook, float], corpus: Corpus) -> None:
    result, _, _ = policy_audit
    order = [corpus.aml.id, corpus.gen.id]
    keys = [(order.index(f.target_doc_id), SEVERITY_ORDER.index(f.severity))
            for f in result.findings]
    assert keys == sorted(keys)
    capped = False
    for target in order:
        mine = [f for f in result.findings if f.target_doc_id == target]
        assert len(mine) <= MAX_FINDINGS and sum(f.kind == "gap" for f in mine) <= MAX_GAPS
        assert len({(f.target_clause, f.kind) for f in mine}) == len(mine)  # no duplicates
        capped |= len(mine) == MAX_FINDINGS or sum(f.kind == "gap" for f in mine) == MAX_GAPS
    assert "findings" in result.summary and corpus.aml.title in result.summary
    # What a cap left out is owned up to, and only when a cap was reached.
    assert "not listed" not in result.summary or capped


async def test_text_audit_flags_a_non_compliant_email(audit: Audit, corpus: Corpus) -> None:
    result, book, seconds = await audit.run(corpus, [corpus.aml, corpus.gen], text=EMAIL)
    print(f"\ntext audit: {seconds:.1f} s, {len(result.findings)} findings")
    assert result.mode == "text" and result.overall_status == "Major Violations"
    assert result.themes_analyzed is None
    flagged = {f.source_quote for f in result.findings}
    assert len(flagged) >= 3
    assert any("anonymously" in (q or "") for q in flagged)
    assert any("No ID needed" in (q or "") for q in flagged)
    assert any("guaranteed returns" in (f.source_quote or "") and
               f.target_doc_id == corpus.gen.id for f in result.findings)
    for finding in result.findings:
        assert finding.kind == "conflict" and finding.source_quote is not None
        assert verify(finding.source_quote, EMAIL)
        assert finding.source_quote in normalise(EMAIL)
    assert book.dropped == 0 and len(book.citations) == len(result.findings)


INTERNAL_EMAIL = ("Hi team, to win the new client quickly we will not screen him against any "
                  "sanctions lists, and he can send his ID documents next month. No need to "
                  "check where his funds come from. Please don't mention anything to "
                  "compliance.")


async def test_each_risk_of_an_email_meets_the_rule_it_breaks(audit: Audit,
                                                              corpus: Corpus) -> None:
    """Each risk is matched to the customer rule that forbids it, the rules for an
    authorised firm included (an email does not say what its firm is), and a list item is
    quoted with the lead-in that says what it is for."""
    result, book, _ = await audit.run(corpus, [corpus.aml], text=INTERNAL_EMAIL)
    by_clause = {f.target_clause: f for f in result.findings}
    assert set(by_clause) == {"8.6.3", "8.2.1.(1)(a)", "8.4.1(c)(i)", "14.2.2"}
    assert "next month" in (by_clause["8.2.1.(1)(a)"].source_quote or "")
    funds = by_clause["8.4.1(c)(i)"]
    assert funds.source_quote == "No need to check where his funds come from."
    assert funds.target_quote.startswith("(c) identify and verify:")
    assert "the Source of Funds" in funds.target_quote
    assert "identify and verify: the Source of Funds" in funds.suggestion
    assert by_clause["14.2.2"].target_quote.startswith("14.2.2 A Relevant Person must have")
    assert book.dropped == 0 and len(book.citations) == len(result.findings)


async def test_text_audit_of_a_compliant_text_is_clean(audit: Audit, corpus: Corpus) -> None:
    text = ("Before we open your account we will need a copy of your passport and proof of "
            "address, and we will ask about the source of the funds you invest.")
    result, _, _ = await audit.run(corpus, [corpus.aml], text=text)
    assert result.findings == [] and result.overall_status == "No issues found"


async def test_an_audit_needs_a_source_and_at_most_five_targets(audit: Audit,
                                                                corpus: Corpus) -> None:
    with pytest.raises(InvalidRequest):
        await audit.run(corpus, [corpus.aml])
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


# -- the facts conflicts are read from ---------------------------------------------------------
@pytest.mark.parametrize(("rule", "policy", "kind"), [
    ("must be kept for at least six years from the date", "retained for five years", "period"),
    ("The MLRO must report semi-annually to the Governing Body", "report to the Board annually",
     "frequency"),
    ("training for all Employees at least annually", "refresher training every two years",
     "frequency"),
    ("the MLRO, without delay, make a SAR/STR as soon as practicable",
     "file the SAR within 30 days of receiving the report", "deadline"),
    ("unable to complete verification within twenty Business Days",
     "completed within 60 days of the first Transaction", "deadline"),
    ("an occasional Transaction of an amount equal to or more than USD15,000",
     "an occasional transaction of USD 50,000 or more", "amount"),
    ("must identify any natural person who owns 25% or more of the shares",
     "owns more than 50% of the shares", "percent"),
    ("must identify all the Beneficial Owners and take reasonable measures to verify the "
     "identity of the Beneficial Owners", "may, where the Relationship Manager considers it "
     "necessary, verify their identity", "modality"),
    ("his decision is made independently and is not subject to the consent or approval of "
     "any other Person", "the Chief Executive Officer, whose approval is required", "independence"),
])
def test_conflicting_facts(rule: str, policy: str, kind: conflicts.Kind) -> None:
    r, p = facets.read(rule), facets.read(policy)
    assert kind in conflicts.comparable(rule, r, p)
    found = conflicts.conflict(kind, r, p)
    assert found is not None and found.kind == kind


@pytest.mark.parametrize(("rule", "policy"), [
    ("must be kept for at least six years", "kept for at least seven years"),
    ("training at least annually", "training every six months"),
    ("must notify the Regulator immediately", "will notify the FSRA immediately, and in any "
     "event within one business day"),
    ("an amount equal to or more than USD15,000", "of USD 10,000 or more"),
    ("must review the effectiveness at least annually", "reviewed at least annually"),
])
def test_a_stricter_policy_is_no_conflict(rule: str, policy: str) -> None:
    r, p = facets.read(rule), facets.read(policy)
    assert all(conflicts.conflict(k, r, p) is None for k in conflicts.comparable(rule, r, p))


def test_records_may_be_electronic_is_no_discretion() -> None:
    assert facets.read("Records may be kept in electronic form.").discretionary is None


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


# -- threshold tuning (bench/audit_tuning.py) ---------------------------------------------------
def test_the_grid_keeps_the_bands_open() -> None:
    points = grid()
    assert points and all(p.topic < p.covered and p.related < p.covered for p in points)


def _point(covered: float, topic: float, related: float, f2: float) -> Point:
    return {"covered": covered, "topic": topic, "related": related, "found": 0, "gaps": 0,
            "recall": 0.0, "precision": 0.0, "f2": f2, "findings": 0, "missed": [],
            "seconds": 0.0}


def test_a_tie_goes_to_the_middle_of_the_plateau() -> None:
    scores = {0.5: 0.1, 0.6: 0.3, 0.7: 0.3, 0.8: 0.3, 0.9: 0.1}
    points = [_point(c, 0.4, 0.45, f2) for c, f2 in scores.items()]
    assert choose(points)["covered"] == 0.7
    assert choose([_point(0.5, 0.4, 0.45, 0.31), *points[1:]])["covered"] == 0.5


def test_the_memo_embedder_embeds_each_text_once() -> None:
    calls: list[list[str]] = []

    class Counting:
        model_name, dimension = "fake", 2

        def embed(self, texts: Sequence[str]) -> Vectors:
            calls.append(list(texts))
            return np.array([[len(t), 1.0] for t in texts], dtype=np.float32)

    memo = MemoEmbedder(Counting())
    first = memo.embed(["a", "bb", "a"])
    again = memo.embed(["bb", "ccc"])
    assert calls == [["a", "bb"], ["ccc"]]
    assert first.tolist() == [[1, 1], [2, 1], [1, 1]] and again.tolist() == [[2, 1], [3, 1]]
    assert memo.embed([]).shape == (0, 2)


SKIP_EMAIL = ("Hi team, the client is in a hurry and the deal is big. Let's skip the CDD this "
              "once and not tell compliance; we can sort the paperwork out later.")


async def test_an_email_that_sets_a_required_act_aside_is_a_finding_never_compliant(
        audit: Audit, corpus: Corpus) -> None:
    """The act the text sets aside ("skip the CDD", "not tell compliance") is read against
    the rules that require it, whatever words the rulebook uses for it."""
    result, book, _ = await audit.run(corpus, [corpus.aml], text=SKIP_EMAIL)
    assert result.overall_status == "Major Violations" and result.findings
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
