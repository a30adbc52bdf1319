"""The matrix audit's verdict and summary: what was checked (parts of each regulation, and
why), what was not, and the counts by status."""

from __future__ import annotations

from collections.abc import Sequence

from regintel.domain.chat import AuditFinding
from regintel.domain.coverage import CoverageMatrix
from regintel.obligations.audit_summary import overall_status

SHOWN_PARTS = 6
__all__ = ["overall_status", "summary"]


def summary(matrix: CoverageMatrix, findings: Sequence[AuditFinding], *,
            held_back: int = 0) -> str:
    """What was checked and found, in a few sentences a reader takes in at a glance: the
    parts checked are named (the first few), the rows counted by status; the whole matrix,
    every part with its reason, is in the exported report."""
    checked = [p for p in matrix.scope if p.checked]
    unchecked = [p for p in matrix.scope if not p.checked]
    applicable = [r for r in matrix.rows if r.review != "not_applicable"]
    counts = (f"{sum(r.review == 'finding' for r in applicable)} proven finding(s), "
              f"{sum(r.review == 'review' for r in applicable)} to review, "
              f"{sum(r.review == 'likely_met' for r in applicable)} likely met (a proposal "
              "to confirm)")
    shown = "; ".join(_part(p.section) for p in checked[:SHOWN_PARTS])
    more = f" and {len(checked) - SHOWN_PARTS} more" if len(checked) > SHOWN_PARTS else ""
    parties = "; ".join(f"{e.actor} ({e.obligations})" for e in matrix.excluded[:SHOWN_PARTS])
    lines = [f"Coverage matrix: {len(applicable)} applicable obligations in the "
             f"{len(checked)} part(s) of the regulations the policy speaks to: {counts}.",
             f"Checked: {shown}{more}." if checked else "No part of the regulations was "
             "close enough to the policy to check.",
             f"Not applicable: the obligations of {parties}, parties the policy does not "
             "govern." if parties else "",
             f"Not checked: {len(unchecked)} part(s) the policy says nothing close to (name "
             "one in the request to check it)." if unchecked else "",
             f"{len(findings)} finding(s) listed" + (
                 f", {held_back} of lower rank not listed (the exported report holds the "
                 "whole matrix)." if held_back else ".")]
    return " ".join(line for line in lines if line)


def _part(section: str) -> str:
    """A part by its last heading: "4.2 Groups, branches and subsidiaries", not its path."""
    return section.split(" › ")[-1]
