"""The review queue's figures: a gap is surfaced by a finding or by a row of its rule in the
first fifth of the rows to review."""

from __future__ import annotations

from uuid import uuid4

from regintel.bench.audit import PlantedGap
from regintel.bench.review_queue import queue_scores
from regintel.domain.coverage import CoverageMatrix, CoverageRow, ObligationRow

DOC = uuid4()


def _row(rule: str, review: str, priority: float) -> CoverageRow:
    o = ObligationRow(id=uuid4(), document_id=DOC, rule=rule, text=f"Rule {rule} text.",
                      modal="must", strength="mandatory")
    return CoverageRow.model_validate({"obligation": o, "status": "missing",
                                       "review": review, "priority": priority})


def _gap(gid: str, rule: str) -> PlantedGap:
    return {"id": gid, "kind": "missing", "rule": rule, "obligation": "", "policy_clause": None,
            "policy_text": None, "match_terms": ["no such words"]}


def test_surfaced_by_finding_or_by_the_first_fifth_of_the_queue() -> None:
    rows = [_row(f"{n}.1", "review", 1 - n / 20) for n in range(1, 11)]
    rows += [_row("20.1", "finding", 1.0), _row("30.1", "likely_met", 0.0)]
    matrix = CoverageMatrix(regulation_ids=(DOC,), rows=tuple(rows))
    gaps = [_gap("A", "1.1"), _gap("B", "2.1.(a)"), _gap("C", "3.1"), _gap("D", "20.1"),
            _gap("E", "30.1"), _gap("F", "99.1")]
    scores = queue_scores(matrix, gaps, {"D": True})
    assert (scores["queue"], scores["first_fifth"], scores["likely_met"]) == (10, 2, 1)
    ranks = {g: s["rank"] for g, s in scores["by_gap"].items()}
    assert ranks == {"A": 1, "B": 2, "C": 3, "D": None, "E": None, "F": None}
    surfaced = {g for g, s in scores["by_gap"].items() if s["surfaced"]}
    assert surfaced == {"A", "B", "D"} and scores["surfaced_share"] == 0.5
    assert scores["by_gap"]["E"]["statuses"] == ["likely_met"]
