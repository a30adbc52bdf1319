"""The audit step: the offline audit engine's typed result, rendered as the answer text
(grouped by target, then severity, as the spec's output format asks)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from uuid import UUID

from regintel.chat.engine import Composed
from regintel.chat.evidence import CitationBook, markers
from regintel.chat.offline.audit import AuditInputs, run_audit
from regintel.chat.offline.unit_vectors import UnitVectors
from regintel.domain.chat import SEVERITY_ORDER, AuditResult, quoted
from regintel.domain.documents import Document
from regintel.errors import InvalidRequest
from regintel.obligations.auditor import MatrixAuditor
from regintel.ports.embedder import Embedder
from regintel.ports.library import ChunkIndex
from regintel.retrieval.hybrid import HybridRetriever

log = logging.getLogger(__name__)


class OfflineAuditor:
    def __init__(self, retriever: HybridRetriever, index: ChunkIndex,
                 embedder: Embedder, memo: UnitVectors | None = None,
                 matrix: MatrixAuditor | None = None) -> None:
        """``memo``: the regulations' unit vectors, kept by the container between turns;
        ``matrix``: the coverage-matrix engine (settings.audit.engine = "matrix"), which
        audits policies and pasted texts alike; if it fails, the rules engine answers."""
        self._retriever = retriever
        self._index = index
        self._embedder = embedder
        self._memo = memo
        self._matrix = matrix

    async def __call__(self, *, tenant_id: UUID, targets: Sequence[Document],
                       source_document: Document | None, source_text: str | None,
                       book: CitationBook) -> Composed:
        pasted = source_document is None and bool(source_text and source_text.strip())
        if self._matrix is not None and (source_document is not None or pasted):
            mark = book.checkpoint()
            try:
                if source_document is not None:
                    mapped = await self._matrix.audit(tenant_id, targets, source_document,
                                                      book=book)
                    return Composed(answer=render(mapped.result, source_document.title,
                                                  targets), audit=mapped.result)
                assert source_text is not None
                result = await self._matrix.audit_text(tenant_id, targets, source_text,
                                                       book=book)
                return Composed(answer=render(result, "the submitted text", targets),
                                audit=result)
            except InvalidRequest:
                raise
            except Exception:
                log.exception("the matrix audit failed; the rules engine answers instead")
                book.rollback(mark)
        result = await run_audit(
            AuditInputs(tenant_id=tenant_id, targets=targets, source_document=source_document,
                        source_text=source_text),
            retriever=self._retriever, index=self._index, embedder=self._embedder, book=book,
            memo=self._memo)
        audited = source_document.title if source_document else "the submitted text"
        return Composed(answer=render(result, audited, targets), audit=result)


def render(result: AuditResult, audited: str, targets: Sequence[Document]) -> str:
    # A text no rule matched was not checked at all: "No issues found" would claim more.
    verdict = "no rule matched what it says, so nothing was checked" if (
        result.mode == "text" and not result.findings and not result.rules_checked) else \
        result.overall_status
    lines = [f"Audit of {audited}: {verdict}.",
             f"{len(result.findings)} finding(s) across {result.targets_checked} "
             f"regulatory source(s)." + (f" Themes analysed: {result.themes_analyzed}."
                                         if result.themes_analyzed else "")]
    if result.summary:
        lines += ["", result.summary]
    said = "Text" if result.mode == "text" else "Policy"  # what the audited side is
    for target in targets:
        findings = [f for f in result.findings if f.target_doc_id == target.id]
        lines += ["", f"## {target.title}"]
        if not findings:
            lines.append("- No issues identified against this source.")
            continue
        for severity in SEVERITY_ORDER:
            group = [f for f in findings if f.severity == severity]
            if not group:
                continue
            lines.append(f"### {severity}")
            for f in group:
                where = f" (Rule {f.target_clause})" if f.target_clause else ""
                kind = "Gap" if f.kind == "gap" else "Conflict"
                theme = f" [{f.theme}]" if f.theme else ""
                lines.append(f"- {kind}{where}{theme}: {f.consequence} "
                             f"{markers(f.citations)}".rstrip())
                lines.append(f"  Requirement: {quoted(f.target_quote)}")
                if f.source_quote:
                    lines.append(f"  {said}: {quoted(f.source_quote)}")
                lines.append(f"  Suggestion: {f.suggestion}")
    return "\n".join(lines)
