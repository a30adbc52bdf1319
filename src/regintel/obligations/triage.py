"""The review queue (issue 47): what the engine proposes for each row it did not prove, why,
and how likely the row is a gap - the order the officer meets the rows in.

- ``finding``: the engine proved it (findings.py made a finding of the row).
- ``likely_met``: a policy sentence restates the rule closely (closeness at least LIKELY_MET,
  every listed item met, nothing contradicted): a proposal, shown as one.
- ``not_applicable``: the rule binds a party the policy does not govern (applicability.py).
- ``review``: every other row, proposed as likely contradicted (the engine read a
  contradiction it could not prove), likely missing (no sentence close enough, or items left
  out) or unclear (a related sentence, not a restatement).

``priority`` estimates how likely the row is a gap. Closeness alone ranks poorly - a rule
worded differently looks like one left out - so an omission is read against its
neighbourhood: a rule far from the policy among rules of its part the policy restates stands
out, one in a part the policy barely touches does not."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from regintel.domain.coverage import CoverageRow, Proposal, ReviewStatus
from regintel.obligations.matrix import part_of, rule_named

LIKELY_MET = 0.62
CONTRADICTED = 0.9  # the floor of a contradiction read but not proven
ITEMS = 0.7  # the floor of a list with items left out


def _shares(rows: Sequence[CoverageRow]) -> dict[str, float]:
    """Per part, the share of its applicable rows the policy meets at least in part."""
    tally: dict[str, list[int]] = {}
    for row in rows:
        if row.review == "not_applicable":
            continue
        counts = tally.setdefault(part_of(row.obligation), [0, 0])
        counts[0] += row.status != "missing"
        counts[1] += 1
    return {part: met / total for part, (met, total) in tally.items()}


def triage(rows: Sequence[CoverageRow], proven: Collection[str], *,
           covered: float) -> list[CoverageRow]:
    """The rows with their review status, proposal, priority and reason. ``proven``: the keys
    of the rows findings.py made findings of; ``covered``: the matrix's covered threshold."""
    shares = _shares(rows)
    out = []
    for row in rows:
        if row.review == "not_applicable":
            out.append(row)
            continue
        review, proposed, priority, reason = _proposal(row, row.key in proven,
                                                       shares.get(part_of(row.obligation), 0.0),
                                                       covered)
        out.append(row.model_copy(update={"review": review, "proposed": proposed,
                                          "priority": round(min(1.0, max(0.0, priority)), 3),
                                          "reason": reason}))
    return out


def _proposal(row: CoverageRow, proven: bool, share: float, covered: float
              ) -> tuple[ReviewStatus, Proposal, float, str]:
    rule = rule_named(row.obligation.rule)
    if row.status == "conflicting":
        said = "; ".join(d.statement for d in row.differing_facts)
        if proven:
            return "finding", "contradicted", 1.0, f"The policy contradicts {rule}: {said}."
        return ("review", "contradicted", CONTRADICTED + 0.1 * row.score,
                f"The closest policy sentence may contradict {rule} ({said}); check it.")
    if row.status == "partial":
        left = "; ".join(row.missing_items[:3])
        if proven:
            return "finding", "missing", 1.0, f"The policy leaves out of {rule}: {left}."
        return ("review", "missing", ITEMS + 0.1 * share,
                f"The policy meets part of {rule}; no sentence is close to: {left}.")
    if row.status == "missing":
        # A rule far from every policy sentence among rules of its part the policy restates.
        distance = max(0.0, covered - row.score) / covered
        return ("review", "missing", 0.25 + 0.35 * share + 0.3 * distance,
                f"No policy sentence is close to {rule} (closest {row.score:.2f}), while the "
                f"policy meets {share:.0%} of its part.")
    if row.score >= LIKELY_MET:
        return ("likely_met", "met", 0.2 * (1 - row.score),
                f"A policy sentence restates {rule} closely ({row.score:.2f}).")
    return ("review", "unclear", 0.15 + 0.3 * share * (LIKELY_MET - row.score) / LIKELY_MET,
            f"A policy sentence is related to {rule} ({row.score:.2f}) but does not restate "
            "it closely; check that it meets the duty.")
