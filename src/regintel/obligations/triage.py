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

import re
from collections.abc import Collection, Sequence

from regintel.domain.coverage import CoverageRow, Proposal, ReviewStatus, TypedFact
from regintel.obligations.facts import facts_of
from regintel.obligations.lexical import content_words
from regintel.obligations.matrix import part_of, rule_named

LIKELY_MET = 0.62
CONTRADICTED = 0.9  # the floor of a contradiction read but not proven
ITEMS = 0.7  # the floor of a list with items left out
ABSENT_ITEMS = 0.8  # … whose own words the policy never uses
ABSENT = 1 / 3  # at most this share of an item's own words anywhere in the policy


# Drafting that softens a duty in the policy's closest sentence: a condition ("unless",
# "only once", "if … decides"), a choice ("may", "at the discretion of"), a delay ("after",
# "wait", "automatically"). General English, read only as a reason to look first.
_SOFTENED = re.compile(
    r"\b(?:unless|only\s+(?:if|when|where|once|after)|once|provided\s+that|subject\s+to|"
    r"may|at\s+(?:the|its|their|his|her)\s+(?:sole\s+)?discretion|decides?\s+otherwise|"
    r"wait|waits|automatically|after|until|except|other\s+than|instead)\b", re.IGNORECASE)
SOFTENED = 0.2  # added to a row's priority when its closest sentence softens a duty
DIFFERENT_FACT = 0.3  # when it states a fact of the rule's kind in other terms


def _fact_said_otherwise(rule: Sequence[TypedFact], policy: Sequence[TypedFact]
                         ) -> tuple[TypedFact, TypedFact] | None:
    """A fact of the rule's kind the policy's sentence states in other terms (a period, an
    approver, a frequency) that the comparison could not call a contradiction."""
    for r in rule:
        for f in policy:
            if f.kind == r.kind and f.kind != "permission" and (
                    f.value != r.value or f.unit != r.unit
                    or (f.value is None and " ".join(f.text.lower().split())
                        != " ".join(r.text.lower().split()))):
                return r, f
    return None


def plainly_absent(row: CoverageRow, policy_words: frozenset[str]) -> bool:
    """Every item the row's list leaves out is plainly absent from the policy: of the words
    that item alone uses (none of the lead-in's or its siblings'), at most ABSENT appear
    anywhere in the policy. Closeness says an item is far from every sentence; this says the
    policy never speaks of it. Still a proposal: an item of a rule on an activity the firm
    does not carry on is absent too."""
    o = row.obligation
    if not row.missing_items:
        return False
    for missing in row.missing_items:
        item = next((i for i in o.items if f"{i.label} {i.text}".strip() == missing), None)
        if item is None:
            return False
        others = content_words(" ".join([o.lead_in or "", *(i.text for i in o.items
                                                              if i is not item)]))
        own = content_words(item.text) - others
        if not own or len(own & policy_words) / len(own) > ABSENT:
            return False
    return True


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


def triage(rows: Sequence[CoverageRow], proven: Collection[str], *, covered: float,
           policy_words: frozenset[str] = frozenset()) -> list[CoverageRow]:
    """The rows with their review status, proposal, priority and reason. ``proven``: the keys
    of the rows findings.py made findings of; ``covered``: the matrix's covered threshold;
    ``policy_words``: the policy's content words (an item it never speaks of stands out)."""
    shares = _shares(rows)
    out = []
    for row in rows:
        if row.review == "not_applicable":
            out.append(row)
            continue
        review, proposed, priority, reason = _proposal(row, row.key in proven,
                                                       shares.get(part_of(row.obligation), 0.0),
                                                       covered, policy_words)
        out.append(row.model_copy(update={"review": review, "proposed": proposed,
                                          "priority": round(min(1.0, max(0.0, priority)), 3),
                                          "reason": reason}))
    return out


def _proposal(row: CoverageRow, proven: bool, share: float, covered: float,
              policy_words: frozenset[str]) -> tuple[ReviewStatus, Proposal, float, str]:
    rule = rule_named(row.obligation.rule)
    if row.status == "conflicting":
        said = "; ".join(d.statement for d in row.differing_facts)
        if proven:
            return "finding", "contradicted", 1.0, f"The policy contradicts {rule}: {said}."
        return ("review", "contradicted", CONTRADICTED + 0.1 * row.score,
                f"The closest policy sentence may contradict {rule} ({said}); check it.")
    if row.status == "partial":
        left = "; ".join(row.missing_items[:3])
        if policy_words and plainly_absent(row, policy_words):
            return ("review", "missing", ABSENT_ITEMS + 0.1 * share,
                    f"The policy meets part of {rule} but never speaks of: {left}.")
        return ("review", "missing", ITEMS + 0.1 * share,
                f"The policy meets part of {rule}; no sentence is close to: {left}.")
    closest = row.policy_quotes[0].quote if row.policy_quotes else ""
    o = row.obligation
    if closest and o.strength in ("mandatory", "prohibition"):
        rule_facts = [*o.facts, *(f for i in o.items for f in facts_of(i.text, o.strength))]
        other = _fact_said_otherwise(rule_facts, facts_of(closest))
        if other is not None:
            return ("review", "contradicted", 0.6 + DIFFERENT_FACT * row.score,
                    f"The closest policy sentence states {other[1].text!r} where {rule} "
                    f"states {other[0].text!r}; check that it meets the rule.")
        softened = _SOFTENED.search(closest)
        if softened is not None and not _SOFTENED.search(o.text) and row.score >= 0.4:
            return ("review", "contradicted", 0.45 + SOFTENED * row.score,
                    f"The closest policy sentence qualifies the duty (\"{softened[0]}\") where "
                    f"{rule} does not; check that it still meets it.")
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
