"""The matrix audit: a policy checked against 1–5 regulations through their obligation
registers (built on first use). Vectors come from the turn's unit-vector memo (kept in
Postgres), so a regulation's obligations are embedded once, by its ingestion follow-up or its
first audit. The result is the CoverageMatrix and, from its non-covered rows, an AuditResult
of the usual shape."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, replace
from uuid import UUID, uuid4

import numpy as np
import numpy.typing as npt

from regintel.domain.chat import AuditResult, FlaggedSentence, ReviewCounts
from regintel.domain.coverage import CoverageMatrix, CoverageRow, ExcludedParty, ScopePart
from regintel.domain.documents import DocType, Document, SearchScope, StoredChunk
from regintel.errors import InvalidRequest
from regintel.obligations import audit_summary as text_report
from regintel.obligations.findings import findings_of, rules_checked
from regintel.obligations.flags import flagged_sentences, flagged_units
from regintel.obligations.lexical import content_words
from regintel.obligations.matrix import SHIPPED, Regulation, Thresholds, row_text, rows_for
from regintel.obligations.policy_text import PolicyUnit, policy_units
from regintel.obligations.reach import RELATED as REACH_RELATED
from regintel.obligations.reach import SET_ASIDE as REACH_SET_ASIDE
from regintel.obligations.reach import in_reach
from regintel.obligations.registers import Registers
from regintel.obligations.report import overall_status, summary
from regintel.obligations.set_aside import (
    SET_ASIDE,
    SetAside,
    acts_set_aside,
    rows_setting_aside,
)
from regintel.obligations.triage import triage
from regintel.ports.embedder import Embedder
from regintel.ports.library import ChunkIndex
from regintel.retrieval.abbreviations import expand
from regintel.retrieval.evidence import CitationBook
from regintel.retrieval.hybrid import MAX_QUERY_CHARS, HybridRetriever
from regintel.retrieval.unit_vectors import UnitVectors

MAX_TARGETS = 5
MAX_WORDS = 1000  # a pasted text's length; longer ones are uploaded as documents
MAX_FINDINGS = 25
FLAG_HITS = 3  # passages a flagged sentence's search keeps, per query and regulation


def _check_targets(regulations: Sequence[Document]) -> None:
    if not 1 <= len(regulations) <= MAX_TARGETS:
        raise InvalidRequest(f"an audit checks against 1 to {MAX_TARGETS} regulations "
                             f"({len(regulations)} given)")


@dataclass(frozen=True)
class MatrixAudit:
    matrix: CoverageMatrix
    result: AuditResult


class MatrixAuditor:
    def __init__(self, *, registers: Registers, index: ChunkIndex, embedder: Embedder,
                 memo: UnitVectors | None = None, retriever: HybridRetriever | None = None,
                 thresholds: Thresholds = SHIPPED,
                 max_findings: int = MAX_FINDINGS) -> None:
        self._registers = registers
        self._index = index
        self._embedder = embedder
        self._memo = memo
        self._retriever = retriever
        self.thresholds = thresholds
        self.max_findings = max_findings

    async def _vectors(self, tenant: UUID, units: Sequence[tuple[UUID, str]]
                       ) -> npt.NDArray[np.float32]:
        if not units:
            return np.zeros((0, self._embedder.dimension), dtype=np.float32)
        if self._memo is not None:
            return np.asarray(await self._memo.embed(self._embedder, tenant, units),
                              dtype=np.float32)
        return np.asarray(await asyncio.to_thread(self._embedder.embed,
                                                  [t for _, t in units]), dtype=np.float32)

    async def regulation(self, tenant: UUID, document: Document) -> Regulation:
        rows = await self._registers.get(tenant, document.id)
        vectors = await self._vectors(tenant, [(document.id, row_text(r)) for r in rows])
        items = await self._vectors(tenant, [(document.id, i.text) for r in rows
                                             for i in r.items])
        return Regulation(document.id, document.title, rows, vectors, items)

    async def prepare(self, tenant: UUID, document: Document) -> None:
        """Embeds ahead of a first audit what it reads of a ready document - a regulation's
        obligations, a policy's clauses - into the memo (the ingestion follow-up)."""
        if document.doc_type is DocType.REGULATION:
            await self.regulation(tenant, document)
        else:
            units = policy_units(await self._index.document_chunks(tenant, document.id))
            await self._vectors(tenant, [(document.id, u.context) for u in units])

    async def audit(self, tenant: UUID, regulations: Sequence[Document], policy: Document, *,
                    book: CitationBook, focus: str | None = None) -> MatrixAudit:
        _check_targets(regulations)
        policy_chunks = await self._index.document_chunks(tenant, policy.id)
        units = policy_units(policy_chunks)
        if not units:
            raise InvalidRequest(f"\"{policy.title}\" has no text to audit")
        policy_job = self._vectors(tenant, [(policy.id, u.context) for u in units])
        unit_vectors, read = await asyncio.gather(
            policy_job, asyncio.gather(*(self.regulation(tenant, d) for d in regulations)))
        focus_words = content_words(focus) if focus else frozenset()
        rows: list[CoverageRow] = []
        scope: list[ScopePart] = []
        excluded: list[ExcludedParty] = []
        for regulation in read:
            mapped = rows_for(regulation, units, unit_vectors, thresholds=self.thresholds,
                              focus_words=focus_words)
            rows += mapped.rows
            scope += mapped.scope
            excluded += mapped.excluded
        matrix = CoverageMatrix(policy_document_id=policy.id, policy_title=policy.title,
                                regulation_ids=tuple(d.id for d in regulations), focus=focus,
                                rows=tuple(rows), scope=tuple(scope), excluded=tuple(excluded))
        chunks: dict[UUID, StoredChunk] = {c.id: c for c in policy_chunks}
        for d in regulations:
            chunks.update({c.id: c for c in await self._index.document_chunks(tenant, d.id)})
        documents = {d.id: d for d in [*regulations, policy]}
        found = findings_of(matrix, documents=documents, chunks=chunks, book=book,
                            max_findings=self.max_findings)
        findings = found.findings
        policy_words = frozenset().union(*(content_words(c.text) for c in policy_chunks))
        matrix = matrix.model_copy(update={"rows": tuple(triage(
            matrix.rows, found.proven, policy_words=policy_words))})
        counts = review_counts(matrix)
        result = AuditResult(
            mode="policy", overall_status=overall_status(findings, counts.to_review),
            findings=findings, review=counts,
            summary=summary(matrix, findings, held_back=found.held_back),
            targets_checked=len(regulations),
            themes_analyzed=sum(1 for p in scope if p.checked),
            rules_checked=rules_checked(matrix, {d.id: d.title for d in regulations}))
        return MatrixAudit(matrix, result)

    async def audit_text(self, tenant: UUID, regulations: Sequence[Document], text: str, *,
                         book: CitationBook) -> MatrixAudit:
        """A pasted text (an email, a draft) read as a policy's clauses are - each sentence
        of each line a unit - and matched to the regulations' obligations: its findings are
        the rules its sentences contradict, each shown with the text's own words; the rules
        checked are those a sentence of it is close to."""
        _check_targets(regulations)
        text = text.strip()
        words = len(text.split())
        if words > MAX_WORDS:
            raise InvalidRequest(f"the text to audit has {words} words; text mode takes up to "
                                 f"{MAX_WORDS}", hint="upload it as a document instead")
        # The text as the one chunk of a document of its own, never stored: its units are
        # then verbatim slices of it, as a policy's are of its chunks.
        chunk = StoredChunk(id=uuid4(), document_id=uuid4(), ordinal=0, text=text,
                            page_start=1, page_end=1, char_start=0, char_end=len(text))
        units = policy_units([chunk]) if text else []
        rows: list[CoverageRow] = []
        scope: list[ScopePart] = []
        chunks: dict[UUID, StoredChunk] = {chunk.id: chunk}
        flagged: list[FlaggedSentence] = []
        if units:
            acts = [(n, act) for n, u in enumerate(units) for act in acts_set_aside(u.text)]
            unit_vectors, act_vectors, read = await asyncio.gather(
                self._text_vectors([u.context for u in units]),
                self._text_vectors([expand(a.act) for _, a in acts]),
                asyncio.gather(*(self.regulation(tenant, d) for d in regulations)))
            thresholds, least = self.thresholds, SET_ASIDE
            whole, searched = read, None
            if self._retriever is not None:
                searched = await self._flag_searches(tenant, regulations, units, acts)
                read = await asyncio.gather(*(
                    in_reach(self._retriever, tenant, r, [u.text for u in units])
                    for r in read))
                # A part the search reached is the text's subject: checked, however few
                # words a sentence shares with its rules.
                thresholds = replace(thresholds, related=min(thresholds.related, REACH_RELATED),
                                     scope=min(thresholds.scope, REACH_RELATED))
                least = REACH_SET_ASIDE
            flagged = flagged_sentences(whole, units, unit_vectors, acts, act_vectors,
                                        found=searched)
            for regulation in read:
                mapped = rows_for(regulation, units, unit_vectors, thresholds=thresholds)
                found, parts = mapped.rows, mapped.scope
                set_aside = rows_setting_aside(regulation, units, unit_vectors, acts,
                                               act_vectors, thresholds=thresholds, least=least)
                # A duty set aside is a contradiction, whatever else its row said; a fact
                # contradicted already is the surer reading of the rule.
                replaced = {r.obligation.rule for r in set_aside}
                conflicting = {r.obligation.rule for r in found if r.status == "conflicting"}
                rows += [r for r in found if r.obligation.rule in conflicting
                         or r.obligation.rule not in replaced]
                rows += [r for r in set_aside if r.obligation.rule not in conflicting]
                scope += parts
            for d in regulations:
                chunks.update({c.id: c for c in
                               await self._index.document_chunks(tenant, d.id)})
        matrix = CoverageMatrix(policy_document_id=None, policy_title="the submitted text",
                                regulation_ids=tuple(d.id for d in regulations),
                                rows=tuple(rows), scope=tuple(scope))
        findings = findings_of(matrix, documents={d.id: d for d in regulations},
                               chunks=chunks, book=book,
                               max_findings=self.max_findings, text=text).findings
        titles = {d.id: d.title for d in regulations}
        checked = [r for r in matrix.rows if r.policy_quotes or r.status == "conflicting"]
        rules = list(dict.fromkeys(f"{titles[r.obligation.document_id]} {r.obligation.rule}"
                                   for r in checked if r.obligation.rule))
        return MatrixAudit(matrix, AuditResult(
            mode="text", overall_status=overall_status(findings, len(flagged)),
            findings=findings, flagged=flagged,
            summary=text_report.summary(findings, regulations, (), what="text", rules=rules,
                                       reach="the rules the text's sentences are close to",
                                       flagged=len(flagged)),
            targets_checked=len(regulations), rules_checked=rules))

    async def _flag_searches(self, tenant: UUID, regulations: Sequence[Document],
                             units: Sequence[PolicyUnit], acts: Sequence[tuple[int, SetAside]]
                             ) -> dict[int, list[UUID]]:
        """Per flagged unit, the passages the library's search finds for the sentence and for
        each act it sets aside, best first."""
        assert self._retriever is not None
        out: dict[int, list[UUID]] = {}
        for flag in flagged_units(units, acts):
            queries = [units[flag.unit].text, *(a.act for n, a in acts if n == flag.unit)]
            hits = [hit for query in queries for document in regulations
                    for hit in await self._retriever.search(
                        tenant, expand(query)[:MAX_QUERY_CHARS], k=FLAG_HITS,
                        scope=SearchScope(document_ids=(document.id,)))]
            hits.sort(key=lambda h: -h.score)
            out[flag.unit] = list(dict.fromkeys(h.chunk_id for h in hits))
        return out

    async def _text_vectors(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        # Embedded as they are: a pasted text is read once, not kept in the memo.
        if not texts:
            return np.zeros((0, self._embedder.dimension), dtype=np.float32)
        return np.asarray(await asyncio.to_thread(self._embedder.embed, list(texts)),
                          dtype=np.float32)


def review_counts(matrix: CoverageMatrix) -> ReviewCounts:
    rows = matrix.rows
    return ReviewCounts(findings=sum(r.review == "finding" for r in rows),
                        to_review=sum(r.review == "review" for r in rows),
                        likely_met=sum(r.review == "likely_met" for r in rows),
                        not_applicable=sum(r.review == "not_applicable" for r in rows))
