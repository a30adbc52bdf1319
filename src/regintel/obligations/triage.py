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
from dataclasses import dataclass

from regintel.domain.coverage import CoverageRow, Proposal, ReviewStatus, TypedFact
from regintel.obligations.facts import facts_of
from regintel.obligations.lexical import content_words
from regintel.obligations.matrix import part_of, rule_named

LIKELY_MET = 0.66
RELATED_SOFTENED = 0.4  # a qualifier is read only in a sentence at least this close
ABSENT = 1 / 3  # at most this share of an item's own words anywhere in the policy


# Drafting that softens a duty in the policy's closest sentence: a condition ("unless",
# "only once", "if … decides"), a choice ("may", "at the discretion of"), a delay ("wait",
# "automatically"). General English, read only as a reason to look first ("after" and "until"
# are left out: "six years after the account closes" softens nothing).
_SOFTENED = re.compile(
    r"\b(?:unless|only\s+(?:if|when|where|once|after)|once(?!\s+(?:a|an|every|per|each)\b)|"
    r"provided\s+that|subject\s+to|may|at\s+(?:the|its|their|his|her)\s+(?:sole\s+)?"
    r"discretion|decides?\s+otherwise|wait|waits|automatically|except|other\s+than|instead)"
    r"\b", re.IGNORECASE)


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


@dataclass(frozen=True)
class Signals:
    """What the engine reads of a row, each general to any regulation and policy."""

    status: str
    score: float  # the closest sentence's closeness
    specificity: float  # how much closer it is to this rule than to rules in general
    share: float  # the share of the row's part the policy meets
    suspected: str | None  # a fact a less close sentence states against the rule
    otherwise: str | None  # a fact of the rule's kind the closest sentence states otherwise
    softened: str | None  # a qualifier the closest sentence adds to the duty
    absent: bool  # the items the row leaves out are words the policy never uses
    prohibition: bool


def signals(row: CoverageRow, share: float, policy_words: frozenset[str]) -> Signals:
    o = row.obligation
    closest = row.policy_quotes[0].quote if row.policy_quotes else ""
    otherwise = softened = None
    if closest and o.strength in ("mandatory", "prohibition") and not row.suspected:
        rule_facts = [*o.facts, *(f for i in o.items for f in facts_of(i.text, o.strength))]
        other = _fact_said_otherwise(rule_facts, facts_of(closest))
        if other is not None:
            otherwise = f"it states {other[1].text!r} where the rule states {other[0].text!r}"
        found = _SOFTENED.search(closest)
        if found is not None and not _SOFTENED.search(o.text):
            softened = found[0]
    return Signals(
        status=row.status, score=row.score, specificity=row.specificity, share=share,
        suspected="; ".join(d.statement for d in row.suspected) or None,
        otherwise=otherwise, softened=softened,
        absent=bool(policy_words) and row.status == "partial" and plainly_absent(row,
                                                                                 policy_words),
        prohibition=o.strength == "prohibition")


def priority(read: Signals) -> float:
    """How likely the row is a gap, in tiers of how directly the engine read it: a
    contradiction it could not pin to one rule; a fact a less close sentence states against
    the rule; items the policy never speaks of; a fact of the rule's kind stated otherwise;
    then omissions and qualifiers, higher where the rest of the row's part is met (a rule
    left out among rules the policy restates stands out) and where the closest sentence is
    no closer to this rule than to rules in general. (A logistic model fitted on the same
    signals ordered no better on the other regulations' policies: fit_priority.py.)"""
    near = max(0.0, min(1.0, read.score))
    if read.status == "conflicting":
        return 0.9 + 0.1 * near
    if read.status == "partial":
        return (0.8 if read.absent else 0.7) + 0.1 * read.share
    if read.suspected is not None:
        return 0.62 + 0.1 * near
    if read.otherwise is not None:
        return 0.6 + 0.3 * near
    if read.softened is not None and near >= RELATED_SOFTENED:
        return 0.45 + 0.2 * near
    if read.status == "missing":
        return 0.25 + 0.35 * read.share + 0.3 * max(0.0, 0.5 - near) * 2
    return 0.15 + 0.3 * read.share * max(0.0, LIKELY_MET - near) / LIKELY_MET


def triage(rows: Sequence[CoverageRow], proven: Collection[str], *,
           policy_words: frozenset[str] = frozenset()) -> list[CoverageRow]:
    """The rows with their review status, proposal, priority and reason. ``proven``: the keys
    of the rows findings.py made findings of; ``policy_words``: the policy's content words
    (an item it never speaks of stands out)."""
    shares = _shares(rows)
    out = []
    for row in rows:
        if row.review == "not_applicable":
            out.append(row)
            continue
        read = signals(row, shares.get(part_of(row.obligation), 0.0), policy_words)
        review, proposed, reason = _proposal(row, read, row.key in proven)
        out.append(row.model_copy(update={
            "review": review, "proposed": proposed, "reason": reason,
            "priority": 1.0 if review == "finding" else round(priority(read), 3)}))
    return out


def _proposal(row: CoverageRow, read: Signals, proven: bool
              ) -> tuple[ReviewStatus, Proposal, str]:
    rule = rule_named(row.obligation.rule)
    if row.status == "conflicting":
        said = "; ".join(d.statement for d in row.differing_facts)
        if proven:
            return "finding", "contradicted", f"The policy contradicts {rule}: {said}."
        return ("review", "contradicted", f"The policy's sentence contradicts {rule} ({said}), "
                "but contradicts a rule of another part about as closely; say which it breaks.")
    if row.status == "partial":
        left = "; ".join(row.missing_items[:3])
        if read.absent:
            return ("review", "missing",
                    f"The policy meets part of {rule} but never speaks of: {left}.")
        return ("review", "missing",
                f"The policy meets part of {rule}; no sentence is close to: {left}.")
    if read.suspected:
        return ("review", "contradicted", f"A policy sentence states a fact against {rule} "
                f"({read.suspected}); it is too far from the rule to prove it concerns the "
                "same duty.")
    if read.otherwise:
        return ("review", "contradicted", f"The closest policy sentence differs from {rule}: "
                f"{read.otherwise}; check that it meets the rule.")
    if read.softened and row.score >= RELATED_SOFTENED:
        return ("review", "contradicted", f"The closest policy sentence qualifies the duty "
                f"(\"{read.softened}\") where {rule} does not; check that it still meets it.")
    if row.status == "missing":
        return ("review", "missing", f"No policy sentence is close to {rule} (closest "
                f"{row.score:.2f}), while the policy meets {read.share:.0%} of its part.")
    if row.score >= LIKELY_MET and read.specificity >= 0:
        return ("likely_met", "met", f"A policy sentence restates {rule} closely "
                f"({row.score:.2f}).")
    return ("review", "unclear", f"A policy sentence is related to {rule} ({row.score:.2f}) "
            "but does not restate it closely; check that it meets the duty.")
