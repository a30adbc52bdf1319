"""The matrix audit: a policy checked against 1–5 regulations through their obligation
registers (built on first use). Vectors come from the turn's unit-vector memo (kept in
Postgres), so a regulation's obligations are embedded once, by its ingestion follow-up or its
first audit. The result is the CoverageMatrix and, from its non-covered rows, an AuditResult
of the usual shape."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

import numpy as np
import numpy.typing as npt

from regintel.chat.evidence import CitationBook
from regintel.chat.offline.unit_vectors import UnitVectors
from regintel.domain.chat import AuditResult
from regintel.domain.coverage import CoverageMatrix, CoverageRow, ScopePart
from regintel.domain.documents import Document, StoredChunk
from regintel.errors import InvalidRequest
from regintel.obligations.findings import findings_of, rules_checked
from regintel.obligations.lexical import content_words
from regintel.obligations.matrix import SHIPPED, Regulation, Thresholds, row_text, rows_for
from regintel.obligations.policy_text import policy_units
from regintel.obligations.registers import Registers
from regintel.obligations.report import overall_status, summary
from regintel.ports.embedder import Embedder
from regintel.ports.library import ChunkIndex

MAX_TARGETS = 5
MAX_GAPS = 12  # omissions per regulation; contradictions first (they are surer)
MAX_FINDINGS = 25


@dataclass(frozen=True)
class MatrixAudit:
    matrix: CoverageMatrix
    result: AuditResult


class MatrixAuditor:
    def __init__(self, *, registers: Registers, index: ChunkIndex, embedder: Embedder,
                 memo: UnitVectors | None = None, thresholds: Thresholds = SHIPPED,
                 max_gaps: int = MAX_GAPS, max_findings: int = MAX_FINDINGS) -> None:
        self._registers = registers
        self._index = index
        self._embedder = embedder
        self._memo = memo
        self.thresholds = thresholds
        self.max_gaps = max_gaps
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

    async def audit(self, tenant: UUID, regulations: Sequence[Document], policy: Document, *,
                    book: CitationBook, focus: str | None = None) -> MatrixAudit:
        if not 1 <= len(regulations) <= MAX_TARGETS:
            raise InvalidRequest(f"an audit checks against 1 to {MAX_TARGETS} regulations "
                                 f"({len(regulations)} given)")
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
        for regulation in read:
            found, parts = rows_for(regulation, units, unit_vectors,
                                    thresholds=self.thresholds, focus_words=focus_words)
            rows += found
            scope += parts
        matrix = CoverageMatrix(policy_document_id=policy.id, policy_title=policy.title,
                                regulation_ids=tuple(d.id for d in regulations), focus=focus,
                                rows=tuple(rows), scope=tuple(scope))
        chunks: dict[UUID, StoredChunk] = {c.id: c for c in policy_chunks}
        for d in regulations:
            chunks.update({c.id: c for c in await self._index.document_chunks(tenant, d.id)})
        documents = {d.id: d for d in [*regulations, policy]}
        findings, held_back = findings_of(matrix, documents=documents, chunks=chunks, book=book,
                                          max_gaps=self.max_gaps,
                                          max_findings=self.max_findings)
        result = AuditResult(
            mode="policy", overall_status=overall_status(findings), findings=findings,
            summary=summary(matrix, findings, held_back=held_back),
            targets_checked=len(regulations),
            themes_analyzed=sum(1 for p in scope if p.checked),
            rules_checked=rules_checked(matrix, {d.id: d.title for d in regulations}))
        return MatrixAudit(matrix, result)
