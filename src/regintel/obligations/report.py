"""The matrix audit's verdict and summary: what was checked (parts of each regulation, and
why), what was not, and the counts by status."""

from __future__ import annotations

from collections.abc import Sequence

from regintel.chat.audit_summary import overall_status
from regintel.domain.chat import AuditFinding
from regintel.domain.coverage import CoverageMatrix

SHOWN_PARTS = 6
__all__ = ["overall_status", "summary"]


def summary(matrix: CoverageMatrix, findings: Sequence[AuditFinding], *,
            held_back: int = 0) -> str:
    checked = [p for p in matrix.scope if p.checked]
    unchecked = [p for p in matrix.scope if not p.checked]
    counts = ", ".join(f"{matrix.count(s)} {s}" for s in
                       ("covered", "partial", "missing", "conflicting"))
    shown = "; ".join(f"{p.section} ({p.reason})" for p in checked[:SHOWN_PARTS])
    more = f" and {len(checked) - SHOWN_PARTS} more" if len(checked) > SHOWN_PARTS else ""
    lines = [f"Coverage matrix: {len(matrix.rows)} obligations in {len(checked)} checked "
             f"part(s) of the regulations: {counts}.",
             f"Checked: {shown}{more}." if checked else "No part of the regulations was "
             "close enough to the policy to check.",
             f"Not checked: {len(unchecked)} part(s) whose obligations no policy text is close "
             "to (the policy does not appear to cover them; name one in the request to check "
             "it)." if unchecked else ""]
    if held_back:
        lines.append(f"{held_back} lower-ranked finding(s) are not listed; the matrix holds "
                     "every row.")
    if findings:
        lines.append(f"{len(findings)} finding(s) listed.")
    return " ".join(line for line in lines if line)
