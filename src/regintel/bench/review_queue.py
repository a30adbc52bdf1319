"""How well an audit's review queue serves the officer (issue 47): a planted gap is
*surfaced* when a finding finds it or when a row of its rule stands in the first fifth of the
queue's rows to review (the rows that are neither a finding, likely met nor not applicable) -
what an officer meets who reviews that fifth. Each gap's rank is its first row's place among
the rows to review (1-based; None when no row to review is its rule)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from regintel.bench.audit import PlantedGap, clause_matches
from regintel.domain.coverage import CoverageMatrix, CoverageRow

FIRST_SHARE = 0.2


def row_is(row: CoverageRow, gap: PlantedGap) -> bool:
    """The row is the gap's rule, one of its items or paragraphs, or the rule the gap's
    paragraph belongs to (a register row of "2.6.1" holds "2.6.1.(a)(ii)"), or says all the
    gap's terms."""
    o = row.obligation
    if clause_matches(o.rule, gap["rule"]) or clause_matches(gap["rule"], o.rule or "") or any(
            clause_matches(f"{o.rule}{i.label}", gap["rule"]) for i in o.items if o.rule):
        return True
    said = " ".join([o.text, *(i.text for i in o.items)]).lower()
    return bool(gap["match_terms"]) and all(t.lower() in said for t in gap["match_terms"])


def queue_scores(matrix: CoverageMatrix | None, gaps: Sequence[PlantedGap],
                 found_by_finding: dict[str, bool]) -> dict[str, Any]:
    """Per gap: found by a finding, its rank in the queue, its rows' review statuses; and the
    share surfaced."""
    rows = matrix.queue if matrix is not None else ()
    to_review = [r for r in rows if r.review == "review"]
    first = math.ceil(FIRST_SHARE * len(to_review))
    by_gap: dict[str, dict[str, Any]] = {}
    for gap in gaps:
        rank = next((n + 1 for n, r in enumerate(to_review) if row_is(r, gap)), None)
        statuses = sorted({r.review for r in rows if row_is(r, gap)})
        found = found_by_finding.get(gap["id"], False)
        by_gap[gap["id"]] = {"rank": rank, "statuses": statuses, "by_finding": found,
                             "surfaced": found or (rank is not None and rank <= first)}
    surfaced = sum(bool(g["surfaced"]) for g in by_gap.values())
    return {"queue": len(to_review), "first_fifth": first,
            "likely_met": sum(r.review == "likely_met" for r in rows),
            "not_applicable": sum(r.review == "not_applicable" for r in rows),
            "surfaced": surfaced,
            "surfaced_share": round(surfaced / len(gaps), 3) if gaps else 0.0,
            "by_gap": by_gap}
