"""The audit over a chat model (chat/llm/audit.py): scripted themes and findings over real
hybrid retrieval (the real MiniLM embedder and relevance model over a small in-memory index),
through the engine's own structured call. Quotes are cut from the stored chunks, never taken
from the model; answers that cannot be mapped reject the whole audit."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar
from uuid import UUID, uuid4

import numpy as np
import pytest
from pydantic import BaseModel

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.chat.auditing import render
from regintel.chat.engine import Composed
from regintel.chat.llm import audit_plan
from regintel.chat.llm.audit import Ask, AuditStep, AuditUnusable, llm_audit
from regintel.chat.llm.audit_plan import plan_theme, whole_source
from regintel.chat.llm.audit_prompts import FINDINGS_TASK, MAX_FINDINGS_PER_CALL, THEMES_TASK
from regintel.chat.llm.engine import LlmEngine, Step
from regintel.chat.llm.fake import Item, Pause, ScriptedChatModel, json_reply, reply
from regintel.chat.llm.reports import StepFailed
from regintel.chat.offline.engine import OfflineEngine
from regintel.domain.chat import AuditResult
from regintel.domain.documents import (
    ChunkHit,
    DocType,
    Document,
    SearchScope,
    StoredChunk,
    TermCoverage,
)
from regintel.errors import InvalidRequest
from regintel.ports.llm import ChatMessage
from regintel.retrieval.evidence import CitationBook, verify
from regintel.retrieval.hybrid import HybridRetriever
from tests.unit.chat_llm.conftest import document

Out = TypeVar("Out", bound=BaseModel)
Findings = Callable[[str, str], list[dict[str, Any]]]  # (theme, user message) → findings
TENANT = uuid4()

POLICY = ("Falcon AML Policy", DocType.POLICY, [
    ("1.1", "Customer due diligence. The Firm verifies the identity of each new customer "
            "within 60 days after the business relationship is established. Simplified checks "
            "apply to customers rated low risk."),
    ("2.1", "Record keeping. The Firm keeps customer due diligence records for three years "
            "after the business relationship ends. Records are stored electronically."),
    ("3.1", "Training. All staff complete anti-money laundering training every two years."),
])
AML = ("AML Rules", DocType.REGULATION, [
    ("8.1.1", "A Relevant Person must verify the identity of a customer before establishing "
              "a business relationship. Verification may be completed after establishment "
              "only where the money laundering risk is low."),
    ("14.2", "A Relevant Person must maintain records of customer due diligence for at least "
             "six years from the date on which the business relationship ends."),
    ("13.1", "A Relevant Person must provide anti-money laundering training to its employees "
             "at least annually."),
])
DPR = ("Data Protection Regulations", DocType.REGULATION, [
    ("5.1", "Personal data must be kept for no longer than is necessary for the purposes for "
            "which it is processed."),
    ("9.2", "A controller must notify the Commissioner of a personal data breach within 72 "
            "hours of becoming aware of it."),
    ("4.1", "Processing of personal data is lawful only where a lawful basis applies."),
])


class MemoryIndex:
    """A ``ChunkIndex`` over a few documents: cosine over the embedder's vectors, and word
    overlap standing in for BM25."""

    def __init__(self, embedder: LocalEmbedder,
                 documents: Sequence[tuple[Document, list[StoredChunk]]]) -> None:
        self._chunks = {c.id: (c, d) for d, chunks in documents for c in chunks}
        self._ids = list(self._chunks)
        self._vectors = embedder.embed([self._chunks[i][0].text for i in self._ids])

    def _scoped(self, tenant_id: UUID, scope: SearchScope) -> list[int]:
        if tenant_id != TENANT:  # the tenant filter lives in the index
            return []
        return [k for k, i in enumerate(self._ids)
                if not scope.document_ids or self._chunks[i][1].id in scope.document_ids]

    async def dense(self, tenant_id: UUID, vector: Sequence[float], k: int,
                    scope: SearchScope) -> list[tuple[UUID, float]]:
        rows = self._scoped(tenant_id, scope)
        sims = self._vectors[rows] @ np.asarray(vector, dtype=np.float32)
        ranked = sorted(zip(rows, sims.tolist(), strict=True), key=lambda p: -p[1])[:k]
        return [(self._ids[row], float(sim)) for row, sim in ranked]

    async def lexical(self, tenant_id: UUID, query: str, k: int,
                      scope: SearchScope) -> list[tuple[UUID, float]]:
        wanted = set(re.findall(r"[a-z]{3,}", query.lower()))
        scored = [(self._ids[row], float(len(wanted & set(re.findall(
            r"[a-z]{3,}", self._chunks[self._ids[row]][0].text.lower())))))
            for row in self._scoped(tenant_id, scope)]
        return sorted([s for s in scored if s[1] > 0], key=lambda s: -s[1])[:k]

    async def coverage(self, tenant_id: UUID, query: str,
                       chunk_ids: Sequence[UUID]) -> dict[UUID, TermCoverage]:
        if tenant_id != TENANT:
            return {}
        wanted = set(re.findall(r"[a-z]{3,}", query.lower()))
        held = {i: len(wanted & set(re.findall(r"[a-z]{3,}", self._chunks[i][0].text.lower())))
                for i in chunk_ids if i in self._chunks}
        return {i: TermCoverage(float(n), n, float(len(wanted)), len(wanted))
                for i, n in held.items()}

    async def fetch(self, tenant_id: UUID, chunk_ids: Sequence[UUID]
                    ) -> dict[UUID, tuple[StoredChunk, Document]]:
        return {i: self._chunks[i] for i in chunk_ids if i in self._chunks and
                tenant_id == TENANT}

    async def document_chunks(self, tenant_id: UUID, document_id: UUID) -> list[StoredChunk]:
        return [c for c, d in self._chunks.values() if d.id == document_id and
                tenant_id == TENANT]

    async def preceding(self, tenant_id: UUID, chunk_ids: Sequence[UUID],
                        depth: int) -> dict[UUID, list[StoredChunk]]:
        return self._beside(tenant_id, chunk_ids, -depth, -1)

    async def following(self, tenant_id: UUID, chunk_ids: Sequence[UUID],
                        depth: int) -> dict[UUID, list[StoredChunk]]:
        return self._beside(tenant_id, chunk_ids, 1, depth)

    def _beside(self, tenant_id: UUID, chunk_ids: Sequence[UUID], first: int,
                last: int) -> dict[UUID, list[StoredChunk]]:
        out: dict[UUID, list[StoredChunk]] = {}
        for i in chunk_ids:
            if i in self._chunks and tenant_id == TENANT:
                chunk = self._chunks[i][0]
                out[i] = sorted((c for c, _ in self._chunks.values()
                                 if c.document_id == chunk.document_id and
                                 chunk.ordinal + first <= c.ordinal <= chunk.ordinal + last),
                                key=lambda c: c.ordinal)
        return out


@dataclass
class Corpus:
    index: MemoryIndex
    retriever: HybridRetriever
    policy: Document
    aml: Document
    dpr: Document

    def chunk_text(self, chunk_id: UUID | None) -> str:
        assert chunk_id is not None
        return next(c.text for c, _ in self.index._chunks.values() if c.id == chunk_id)


@pytest.fixture(scope="module")
def corpus(embedder: LocalEmbedder) -> Corpus:
    built = []
    for title, doc_type, clauses in (POLICY, AML, DPR):
        doc = document(title, doc_type)
        built.append((doc, [StoredChunk(ordinal=n, text=text, page_start=n + 1,
                                        page_end=n + 1, char_start=0, char_end=len(text),
                                        clause=clause, id=uuid4(), document_id=doc.id)
                            for n, (clause, text) in enumerate(clauses)]))
    index = MemoryIndex(embedder, built)
    policy, aml, dpr = (d for d, _ in built)
    return Corpus(index, HybridRetriever(index, embedder), policy, aml, dpr)


def passage_id(user: str, phrase: str) -> str:
    """The id ("T2", "S1") of the passage of the user message holding ``phrase``."""
    for block in user.split("\n\n"):
        found = re.search(r"^\[([ST]\d+)\]", block, re.M)
        if found and phrase in block:
            return found.group(1)
    raise AssertionError(f"no passage holds {phrase!r}: {user}")


def model_for(themes: list[str], findings: Findings, calls: int) -> ScriptedChatModel:
    """A model answering the theme call with ``themes`` and each findings call by its theme
    (the per-theme calls run concurrently, so the answer depends on the prompt, not on the
    order)."""
    def answer(messages: Sequence[ChatMessage]) -> list[Item]:
        system, user = messages[0].content or "", messages[1].content or ""
        if THEMES_TASK in system:
            return json_reply({"themes": themes})
        assert FINDINGS_TASK in system
        theme = re.search(r"^Theme: (.*)$", user, re.M)
        assert theme is not None
        return json_reply({"findings": findings(theme.group(1), user)})
    return ScriptedChatModel([answer] * calls)


def ask_via(engine: LlmEngine, steps: list[AuditStep]) -> Ask:
    """The engine's structured call, as the engine will pass it (the audit steps are mapped
    to the engine's audit step here)."""
    async def ask(step: AuditStep, task: str, user: str, output: type[Out]) -> Out:
        steps.append(step)
        return await engine._ask(Step.AUDIT, task, user, output)
    return ask


def finding(target: str, *, source: str | None = None, kind: str = "conflict",
            severity: str = "High", requirement: str = "", confidence: float = 0.8
            ) -> dict[str, Any]:
    return {"kind": kind, "severity": severity, "target_evidence": target,
            "source_evidence": source, "requirement": requirement or "The rule applies.",
            "consequence": "Breach of the rule; the regulator may take action.",
            "suggestion": "Align the clause with the rule.", "confidence_score": confidence}


def policy_findings(theme: str, user: str) -> list[dict[str, Any]]:
    before = finding(passage_id(user, "before establishing"),
                     source=passage_id(user, "within 60 days"),
                     requirement="A customer's identity must be verified before establishing "
                                 "a business relationship.")
    if theme == "Customer due diligence":
        return [before, finding(passage_id(user, "no longer than is necessary"), kind="gap",
                                severity="Low", requirement="Personal data must not be kept "
                                "longer than necessary.", confidence=0.5)]
    if theme == "Record keeping":
        return [finding(passage_id(user, "six years"), source=passage_id(user, "three years"),
                        severity="Medium", requirement="Records must be kept for at least six "
                        "years from the end of the business relationship."),
                before | {"severity": "Medium"}]  # the same issue again: reported once
    raise AssertionError(theme)


async def audit(corpus: Corpus, model: ScriptedChatModel, offline: OfflineEngine, *,
                text: str | None = None, book: CitationBook | None = None,
                steps: list[AuditStep] | None = None) -> AuditResult:
    engine = LlmEngine(model, offline)
    composed = await llm_audit(ask_via(engine, [] if steps is None else steps),
                           retriever=corpus.retriever, index=corpus.index, tenant_id=TENANT,
                           targets=[corpus.aml, corpus.dpr],
                           source_document=None if text else corpus.policy, source_text=text,
                           book=book or CitationBook())
    assert composed.audit is not None
    assert composed.answer == render(composed.audit, "the submitted text" if text else
                                     corpus.policy.title, [corpus.aml, corpus.dpr])
    return composed.audit


async def test_policy_audit_cites_verified_quotes_grouped_by_target_then_severity(
        corpus: Corpus, offline: OfflineEngine) -> None:
    model = model_for(["Customer due diligence", "Record keeping", " customer  due diligence"],
                      policy_findings, calls=3)
    book, steps = CitationBook(), list[AuditStep]()
    result = await audit(corpus, model, offline, book=book, steps=steps)
    assert steps == [AuditStep.EXTRACT_THEMES, AuditStep.AUDIT_FINDINGS,
                     AuditStep.AUDIT_FINDINGS] and model.remaining == 0  # 1 + themes calls
    assert result.mode == "policy" and result.themes_analyzed == 2
    assert result.targets_checked == 2 and result.overall_status == "Major Violations"
    assert [(f.target_doc_id, f.severity, f.kind, f.theme) for f in result.findings] == [
        (corpus.aml.id, "High", "conflict", "Customer due diligence"),
        (corpus.aml.id, "Medium", "conflict", "Record keeping"),
        (corpus.dpr.id, "Low", "gap", "Customer due diligence")]
    first, second, third = result.findings
    assert "before establishing a business relationship" in first.target_quote
    assert "within 60 days" in (first.source_quote or "")
    assert "six years" in second.target_quote and "three years" in (second.source_quote or "")
    assert third.source_quote is None and first.target_clause == "8.1.1"
    # Numbered in the order the answer shows them: each target's citation, then the policy's.
    assert [f.citations for f in result.findings] == [[1, 2], [3, 4], [5]]
    citations = book.citations
    for f in result.findings:
        target = citations[f.citations[0] - 1]
        assert target.document_id == f.target_doc_id and target.quote == f.target_quote
        assert verify(f.target_quote, corpus.chunk_text(target.chunk_id))
        if f.source_quote is not None:
            source = citations[f.citations[1] - 1]
            assert source.document_id == corpus.policy.id and source.quote == f.source_quote
            assert verify(f.source_quote, corpus.chunk_text(source.chunk_id))
    assert render(result, corpus.policy.title, [corpus.aml, corpus.dpr]).startswith(
        "Audit of Falcon AML Policy: Major Violations.")
    # The model was shown numbered passages of the policy and of both targets, never asked
    # to quote; the sample for the themes is the policy's.
    themes_user = model.calls[0].messages[1].content or ""
    assert "[S1]" in themes_user and "AML Rules" not in themes_user
    findings_user = model.calls[1].messages[1].content or ""
    assert "### AML Rules" in findings_user and "### Data Protection Regulations" in findings_user


async def test_a_theme_is_shown_in_batches_each_with_the_policy_closest_to_it(
        corpus: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each target's DEPTH best passages, grouped by target, BATCH to a call; every call of
    the theme shows the theme's best policy passage, and the passage closest to each of its
    own."""
    for name, value in (("DEPTH", 3), ("BATCH", 2), ("PER_SOURCE", 1),
                        ("PER_PASSAGE_SOURCE", 1)):
        monkeypatch.setattr(audit_plan, name, value)
    calls = await plan_theme(corpus.retriever, corpus.index, TENANT, "Record keeping",
                             corpus.policy, [corpus.aml, corpus.dpr])
    assert [len(c.targets) for c in calls] == [2, 2, 2]
    shown = [h for c in calls for h in c.targets]
    assert [h.document_id for h in shown] == [corpus.aml.id] * 3 + [corpus.dpr.id] * 3
    assert len({h.chunk_id for h in shown}) == 6 and all(c.theme == "Record keeping"
                                                         for c in calls)
    sources = [[s for s in c.sources if isinstance(s, ChunkHit)] for c in calls]
    best = sources[0][0]
    assert "three years" in best.text
    assert all(s[0].chunk_id == best.chunk_id and len(s) == len(c.sources) <= 3
               for s, c in zip(sources, calls, strict=True))
    assert len({s.chunk_id for shown in sources for s in shown}) > 1
    monkeypatch.setattr(audit_plan, "DEPTH", 1)
    [one] = await plan_theme(corpus.retriever, corpus.index, TENANT, "Record keeping",
                             corpus.policy, [corpus.aml, corpus.dpr])
    assert [h.document_id for h in one.targets] == [corpus.aml.id, corpus.dpr.id]


async def test_a_policy_that_fits_the_context_is_shown_whole_in_every_call(
        corpus: Corpus, offline: OfflineEngine) -> None:
    policy_chars = sum(len(text) for _, text in POLICY[2])
    chunks = await corpus.index.document_chunks(TENANT, corpus.policy.id)
    assert whole_source(chunks, corpus.policy, policy_chars - 1) is None
    whole = whole_source(chunks, corpus.policy, policy_chars)
    assert whole is not None and [h.clause for h in whole] == ["1.1", "2.1", "3.1"]
    model = model_for(["Customer due diligence", "Record keeping"], policy_findings, calls=3)
    engine = LlmEngine(model, offline)
    prepared: list[Sequence[str]] = []

    async def prepare(texts: Sequence[str]) -> None:
        assert model.calls == []  # before any findings call goes out
        prepared.append(texts)

    composed = await llm_audit(ask_via(engine, []), retriever=corpus.retriever,
                               index=corpus.index, tenant_id=TENANT,
                               targets=[corpus.aml, corpus.dpr], source_document=corpus.policy,
                               source_text=None, book=CitationBook(), context_tokens=100_000,
                               prepare=prepare)
    assert composed.audit is not None and len(composed.audit.findings) == 3
    [[sent]] = prepared
    assert all(sent in (call.messages[1].content or "") for call in model.calls[1:])
    for call in model.calls[1:]:
        user = call.messages[1].content or ""
        # S1..S3 are the policy's passages in order, before the theme: the prefix repeats.
        assert [passage_id(user, t) for t in ("within 60 days", "three years", "two years")] \
            == ["S1", "S2", "S3"]
        assert user.index("[S3]") < user.index("Theme: ") < user.index("[T1]")


async def test_text_mode_is_one_call_quoting_the_pasted_sentence(
        corpus: Corpus, offline: OfflineEngine) -> None:
    text = ("Dear client, opening an account has never been easier. No ID needed: we verify "
            "who you are within 60 days, if at all. Call us today.")

    def findings(theme: str, user: str) -> list[dict[str, Any]]:
        return [finding(passage_id(user, "before establishing"),
                        source=passage_id(user, "No ID needed"), severity="Medium",
                        requirement="Identity must be verified before the relationship.")]
    model, book, steps = model_for([], findings, calls=1), CitationBook(), list[AuditStep]()
    result = await audit(corpus, model, offline, text=text, book=book, steps=steps)
    assert steps == [AuditStep.AUDIT_FINDINGS]
    assert result.mode == "text" and result.themes_analyzed is None
    assert result.overall_status == "Minor Issues"
    (only,) = result.findings
    assert only.theme is None and only.source_quote is not None
    assert only.source_quote.startswith("No ID needed") and verify(only.source_quote, text)
    assert only.citations == [1] and book.citations[0].quote == only.target_quote
    assert render(result, "the submitted text", [corpus.aml, corpus.dpr]).startswith(
        "Audit of the submitted text: Minor Issues.")


async def test_no_findings_is_compliant(corpus: Corpus, offline: OfflineEngine) -> None:
    model = model_for(["Staff training"], lambda theme, user: [], calls=2)
    book = CitationBook()
    result = await audit(corpus, model, offline, book=book)
    assert result.overall_status == "No issues found" and result.findings == []
    assert book.citations == []
    assert render(result, "x", [corpus.aml, corpus.dpr]).count(
        "No issues identified against this source.") == 2


@pytest.mark.parametrize(("change", "why"), [
    ({"target_evidence": "T99"}, "T99, which was not shown"),
    ({"target_evidence": "S1"}, "is not a TARGET passage id"),
    ({"target_evidence": ""}, "is not a TARGET passage id"),
    ({"source_evidence": "S9"}, "S9, which was not shown"),
    ({"source_evidence": None}, "a conflict without the source passage"),
])
async def test_an_unmappable_finding_rejects_the_audit(
        corpus: Corpus, offline: OfflineEngine, change: dict[str, Any], why: str) -> None:
    def findings(theme: str, user: str) -> list[dict[str, Any]]:
        good = finding(passage_id(user, "six years"), source=passage_id(user, "three years"))
        return [good, good | change]
    model = model_for(["Record keeping"], findings, calls=2)
    book = CitationBook()
    with pytest.raises(AuditUnusable, match=re.escape(why)):
        await audit(corpus, model, offline, book=book)
    assert book.citations == []  # nothing of the rejected audit is left to cite


@pytest.mark.parametrize("answer", [
    reply("these are not findings"),
    json_reply({"findings": [{"kind": "gap", "severity": "High"}]}),
    json_reply({"findings": [finding("T1")] * (MAX_FINDINGS_PER_CALL + 1)}),
    json_reply({"findings": [finding("T1", severity="Severe")]}),
])
async def test_a_malformed_answer_fails_the_step(
        corpus: Corpus, offline: OfflineEngine, answer: list[Item]) -> None:
    """The engine's structured call rejects it (``StepFailed``, which ``AuditUnusable`` is
    too): the engine falls back to the offline auditor as a whole."""
    model = ScriptedChatModel([json_reply({"themes": ["Record keeping"]}), answer])
    with pytest.raises(StepFailed, match="malformed output"):
        await audit(corpus, model, offline)
    assert issubclass(AuditUnusable, StepFailed)


async def test_a_failed_theme_cancels_the_others(corpus: Corpus,
                                                 offline: OfflineEngine) -> None:
    def answer(messages: Sequence[ChatMessage]) -> list[Item]:
        user = messages[1].content or ""
        if user.startswith("Policy:"):
            return json_reply({"themes": ["Training", "Record keeping", "Data retention"]})
        if "\nTheme: Training\n" in user:
            return json_reply({"findings": [finding("T42")]})
        return [Pause(30), *json_reply({"findings": []})]  # slow: cancelled, never waited for
    model = ScriptedChatModel([answer] * 4)
    started = time.perf_counter()
    with pytest.raises(AuditUnusable, match="T42"):
        await audit(corpus, model, offline)
    assert time.perf_counter() - started < 10
    assert model.closed == len(model.calls)  # no stream is left open


async def test_themes_without_substance_reject_and_bad_requests_refuse(
        corpus: Corpus, offline: OfflineEngine) -> None:
    with pytest.raises(AuditUnusable, match="no usable theme"):
        await audit(corpus, model_for([" . ", "-"], lambda theme, user: [], calls=1), offline)
    model = ScriptedChatModel([])
    engine = LlmEngine(model, offline)
    with pytest.raises(InvalidRequest, match="needs a policy document or a text"):
        await llm_audit(ask_via(engine, []), retriever=corpus.retriever, index=corpus.index,
                        tenant_id=TENANT, targets=[corpus.aml], source_document=None,
                        source_text="  ", book=CitationBook())
    with pytest.raises(InvalidRequest, match="1 to 5 regulations"):
        await llm_audit(ask_via(engine, []), retriever=corpus.retriever, index=corpus.index,
                        tenant_id=TENANT, targets=[], source_document=corpus.policy,
                        source_text=None, book=CitationBook())
    assert model.calls == []


async def test_a_model_audit_past_its_time_bound_is_answered_offline(
        corpus: Corpus, offline: OfflineEngine, embedder: LocalEmbedder) -> None:
    """Each call is within its own bound, but the whole audit is not: the offline auditor
    (here one that records its call: the matrix engine has tests of its own, on Postgres)
    answers at once, and the turn is marked as fallen back for the time."""
    def slow(messages: Sequence[ChatMessage]) -> list[Item]:
        return [Pause(5), *json_reply({"themes": ["Record keeping"]})]
    model = ScriptedChatModel([slow])
    engine = LlmEngine(model, offline, timeout_s=30, audit_timeout_s=0.3)
    book = CitationBook()
    started = time.perf_counter()
    called: list[str | None] = []

    async def offline_auditor(*, tenant_id: UUID, targets: Sequence[Document],
                              source_document: Document | None, source_text: str | None,
                              book: CitationBook) -> Composed:
        called.append(source_text)
        return Composed(answer="offline", audit=AuditResult(
            mode="text", overall_status="No issues found", targets_checked=len(targets)))

    composed = await engine.compose_audit(
        offline_auditor, retriever=corpus.retriever,
        index=corpus.index, tenant_id=TENANT, targets=[corpus.aml], source_document=None,
        source_text="We guarantee returns and open accounts without identity checks.",
        book=book)
    assert time.perf_counter() - started < 4
    assert engine.fell_back and [f.reason for f in engine.fallbacks] == ["timeout"]
    assert composed.answer == "offline" and called
    assert model.closed == len(model.calls)  # the slow stream was closed, not left open
