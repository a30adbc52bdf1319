"""An obligation the policy leaves out: when it is worth a finding, which item of a list the
policy leaves out, and the draft finding that says so."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from regintel.chat.offline import obligations
from regintel.chat.offline.drafts import Candidate, Draft, Thresholds, clamp, clause_number
from regintel.chat.offline.segments import Unit
from regintel.chat.offline.word_weights import Weights

MIN_GAP_CHARS = 40  # list fragments ("(e) the NAMLCFTC;") are not reported as gaps
MIN_GAP_EVIDENCE = 0.5  # an omission is asserted only from clearly relevant evidence


def gap(candidate: Candidate, closest: Unit, sim: float, title: str,
        thresholds: Thresholds) -> Draft:
    """An omission. The policy's closest clause is quoted (and its section named) only when
    it is about the subject (RELATED): a distant one would mislead. Confidence is half the
    evidence's relevance, half how squarely the similarity sits between TOPIC and COVERED
    (near either end the call could go the other way)."""
    unit = candidate.unit
    level = obligations.severity(unit, kind="gap")
    ref = obligations.reference(title, unit.clause)
    position = (sim - thresholds.topic) / (thresholds.covered - thresholds.topic)
    nearby = closest if sim >= thresholds.related else None
    return Draft(candidate, unit, unit.clause, "gap", level, nearby, sim,
                 clamp(0.5 * candidate.score + 0.5 * (1 - abs(2 * position - 1))),
                 obligations.consequence(ref, level, kind="gap"),
                 obligations.gap_suggestion(ref, unit, nearby.section if nearby else None),
                 key=("gap", clause_number(unit) or unit.text))


def items_of_lead_ins(found: Sequence[Candidate]) -> dict[int, list[int]]:
    """For each obligation that is a list's lead-in ("… must:"), the obligations that are
    its items (read under it: its text in their lead-in)."""
    by_rule: dict[str | None, list[int]] = {}
    for k, c in enumerate(found):
        if c.unit.stem and len(c.unit.body) >= MIN_GAP_CHARS:
            by_rule.setdefault(clause_number(c.unit), []).append(k)
    return {i: [k for k in by_rule.get(clause_number(lead.unit), [])
                if k != i and lead.unit.body in found[k].unit.stem]
            for i, lead in enumerate(found)
            if lead.unit.clause and lead.unit.body.rstrip().endswith(":")}


def left_out_item(items: list[int], found: Sequence[Candidate],
                  similarity: npt.NDArray[np.float32], worded: npt.NDArray[np.float64],
                  policy: Sequence[Unit], weigh: Weights,
                  thresholds: Thresholds) -> int | None:
    """The item of a list the policy leaves out: of those it neither comes COVERED close to
    nor restates in its words (among each item's closest clauses by vectors and by words),
    the one it comes least close to; None when there is none."""
    closest = {k: float(similarity[k].max()) for k in items}
    for k in sorted(items, key=closest.__getitem__):
        if closest[k] >= thresholds.covered:
            return None
        near = set(np.argsort(-similarity[k])[:3].tolist()) | \
            set(np.argsort(-worded[k])[:3].tolist())
        if not weigh.restated(found[k].unit.body, (policy[j] for j in near)):
            return k
    return None


def pieces(unit: Unit) -> list[Unit]:
    """What a rule asks, piece by piece: a list's items (its lead-in alone asks nothing),
    or the rule itself."""
    return list(unit.parts[1:]) if len(unit.parts) > 1 else [unit]


def reportable_gap(candidate: Candidate) -> bool:
    """An omission worth a finding: found in evidence clearly about the policy's theme, not
    a list fragment ("(e) the NAMLCFTC;"), and not an item that names a thing rather than an
    act ("(a) the government of the U.A.E."), whose absence from a list is a detail."""
    return candidate.score >= MIN_GAP_EVIDENCE and asks_an_act(candidate.unit) and \
        obligations.is_obligation(candidate.unit)


def asks_an_act(unit: Unit) -> bool:
    """Whether a rule (or item) is worth a finding of its own when left out: not a list
    fragment, and not an item that names a thing rather than an act."""
    if len(unit.body) < MIN_GAP_CHARS:
        return False
    first = unit.body.split(maxsplit=1)[0].lower()
    return not (unit.stem and first in _DETERMINERS)


_DETERMINERS = frozenset({"the", "a", "an", "any", "all", "its", "his", "her", "their", "each",
                          "every", "such", "that", "this", "those", "these"})
