"""The audit step: the offline audit engine's typed result, rendered as the answer text
(grouped by target, then severity, as the spec's output format asks)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from uuid import UUID

from regintel.chat.engine import Composed
from regintel.domain.chat import SEVERITY_ORDER, AuditResult, quoted
from regintel.domain.documents import Document
from regintel.errors import InvalidRequest, RegintelError
from regintel.obligations.auditor import MatrixAuditor
from regintel.retrieval.evidence import CitationBook, markers

log = logging.getLogger(__name__)

FAILED = ("The audit could not be completed because of an internal error, so nothing was "
          "checked and no finding is shown. Please try again; if it fails again, the "
          "administrator can see the error in the server log.")


class OfflineAuditor:
    """The offline audit: a policy or a pasted text against 1–5 regulations, through the
    coverage matrix (obligations.auditor) - one engine for every regulation."""

    def __init__(self, matrix: MatrixAuditor) -> None:
        self._matrix = matrix

    async def __call__(self, *, tenant_id: UUID, targets: Sequence[Document],
                       source_document: Document | None, source_text: str | None,
                       book: CitationBook) -> Composed:
        mark = book.checkpoint()
        try:
            return await self._audit(tenant_id, targets, source_document, source_text, book)
        except RegintelError:
            raise
        except Exception:
            # The chat goes on: the turn says plainly that nothing was checked, and why.
            log.exception("the audit failed")
            book.rollback(mark)
            return Composed(answer=FAILED)

    async def _audit(self, tenant_id: UUID, targets: Sequence[Document],
                     source_document: Document | None, source_text: str | None,
                     book: CitationBook) -> Composed:
        if source_document is not None:
            mapped = await self._matrix.audit(tenant_id, targets, source_document, book=book)
            return Composed(answer=render(mapped.result, source_document.title, targets),
                            audit=mapped.result, matrix=mapped.matrix)
        if not (source_text and source_text.strip()):
            raise InvalidRequest("an audit needs a policy document or a text to check",
                                 hint="tag a company policy, or paste the text to audit")
        mapped = await self._matrix.audit_text(tenant_id, targets, source_text, book=book)
        return Composed(answer=render(mapped.result, "the submitted text", targets),
                        audit=mapped.result, matrix=mapped.matrix)


def render(result: AuditResult, audited: str, targets: Sequence[Document]) -> str:
    # A text no rule matched was not checked at all: "No issues found" would claim more.
    verdict: str = "no rule matched what it says, so nothing was checked" if (
        result.mode == "text" and not result.findings and not result.rules_checked) else \
        result.overall_status
    if result.review is not None:  # what was proven, and what is left to the officer
        verdict = result.review.verdict
    counted = (f"Checked against {result.targets_checked} regulatory source(s); open the "
               "review to decide each row." if result.review is not None else
               f"{len(result.findings)} finding(s) across {result.targets_checked} "
               f"regulatory source(s).")
    lines = [f"Audit of {audited}: {verdict}.",
             counted + (f" Themes analysed: {result.themes_analyzed}."
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
    if result.flagged:
        lines += ["", "## Sentences to check",
                  "Each proposes not doing, delaying, hiding, deleting or altering something; "
                  "the rules closest to what it proposes are listed for you to weigh (a flag, "
                  "not a finding)."]
        for flag in result.flagged:
            lines.append(f"- {quoted(flag.sentence)} (\"{flag.cue}\")")
            for rule in flag.rules:
                where = f"{rule.target_doc_title} {rule.rule or ''}".strip()
                lines.append(f"  - {where}: {quoted(rule.quote)}")
    return "\n".join(lines)
