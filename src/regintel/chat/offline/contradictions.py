"""An obligation read against the policy clauses about it: the first kind of fact on which
one falls short of it (a contradiction), and the draft finding that says so, quoting the rule's
item or lead-in the policy gets wrong and the policy's words."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from regintel.chat.offline import acts, conflicts, facets, measures, obligations
from regintel.chat.offline.drafts import (
    Candidate,
    Draft,
    Thresholds,
    clause_number,
    conflict_confidence,
    is_item_of,
)
from regintel.chat.offline.lexical import terms
from regintel.chat.offline.segments import Unit
from regintel.chat.offline.unit_lists import part_saying
from regintel.chat.offline.word_weights import WORDED_ALIKE, Weights

MIN_SHARED_TERMS = 2  # content words a contradicting clause shares with the obligation
RARELY_NAMED = 2  # a thing named in at most this many policy clauses is what they are about
_JUDGEMENT: set[conflicts.Kind] = {"modality", "independence"}
# Read even on a clause that shares few words with the rule: the same act done after the
# relationship starts, or allowed, is what ties the two ("verified within 30 days after
# dealing begins" / "prior to establishing the business relationship … verify"), and so are
# a responsibility passed on ("rests with the Provider" / "remains responsible"), the thing a
# rule excludes (its own words must be in the clause), a report held back from the MLRO, and
# an event left to the next round ("the rating is reassessed at the customer's next scheduled
# periodic review" for "must be completed … whenever … becomes aware of any change").
_ACTS: set[conflicts.Kind] = {
    "order", "prohibition", "responsibility", "exclusion", "filter", "aggregation", "refund",
    "access", "delegation", "owner", "sample", "unregulated", "status", "outside",
    "undisclosed", "scope", "deferral"}


@dataclass(frozen=True)
class Stated:
    """A policy clause's facts: of the whole clause, and of each of its parts (a sentence
    may state one fact about one act and another about another: "obtains the records within
    30 days …, and the introducer must supply copies without delay")."""

    whole: facets.Facets
    parts: tuple[tuple[frozenset[str], facets.Facets], ...]

    @classmethod
    def of(cls, unit: Unit) -> Stated:
        text = f"{unit.stem} {unit.body}"
        pieces = facets.parts(text)
        return cls(facets.read(text), tuple((frozenset(terms(p)), facets.read(p))
                                            for p in pieces) if len(pieces) > 1 else ())

    def on(self, kind: conflicts.Kind, rule_text: str, rule: facets.Facets,
           rule_terms: set[str]) -> facets.Facets | None:
        """The facts of the part that speaks of ``kind`` and shares most words with the
        obligation (the whole clause when it has one part); None when that part states
        nothing to compare (its "without delay" is about the obligation's act, the clause's
        "within 30 days" about another)."""
        speaking = [(len(words & rule_terms), f) for words, f in self.parts
                    if conflicts.mentions(kind, f)]
        if not speaking:
            return self.whole
        chosen = max(speaking, key=lambda p: p[0])[1]
        return chosen if kind in conflicts.comparable(rule_text, rule, chosen) else None


def doing_the_forbidden(rule: facets.Facets, policy_facets: Sequence[Stated],
                       named: Counter[str]) -> list[int]:
    """The clauses that do an act the rule forbids to something the policy names in at most
    RARELY_NAMED clauses ("display the FSRA logo" for "must not use or reproduce the logo of
    the Regulator"): a thing named so rarely is what the clause is about, however far the
    vectors put it from the rule (MiniLM: 0.42)."""
    found = []
    for verb, objects, _ in rule.forbids:
        rare = frozenset(o for o in objects if named[o] <= RARELY_NAMED)
        if rare:
            found += [j for j, f in enumerate(policy_facets)
                      if acts.does(f.whole.text, verb, rare)]
    return found

def contradiction(i: int, candidate: Candidate, rule: facets.Facets,
                  closest: list[tuple[int, float]],
                  policy: Sequence[Unit], policy_facets: Sequence[Stated],
                  mutual: npt.NDArray[np.intp], title: str, weigh: Weights,
                  rulebook: Rulebook,
                  thresholds: Thresholds) -> Draft | None:
    """The first kind of fact on which the closest clause that states it falls short of
    the obligation. Each kind is judged once, on its closest comparable clause, so a
    compliant statement ("training records … six years") outweighs a more distant one on
    another subject ("… records for five years")."""
    unit = candidate.unit
    rule_text = f"{unit.stem} {unit.body}"
    rule_terms = set(terms(rule_text))  # for the shared-words test
    binding = obligations.is_obligation(unit)
    decided: set[conflicts.Kind] = set()
    for j, sim in closest:
        clause = policy[j]
        stated = policy_facets[j]
        kinds = conflicts.comparable(rule_text, rule, stated.whole) - decided
        if len(rule_terms & set(terms(f"{clause.stem} {clause.body}"))) < MIN_SHARED_TERMS:
            kinds &= _ACTS  # tied to the rule by the act itself, not by shared words
        if not binding:  # a licence, a definition or a condition sets no duty to fall
            kinds &= {"easing", "definition", "period", "share"}  # short of, only its bounds
        for kind in sorted(kinds):
            if kind in _JUDGEMENT and (sim < thresholds.covered or i not in mutual[:, j]
                                       or not _acts_on(unit, clause, weigh)):
                continue
            decided.add(kind)
            said = stated.on(kind, rule_text, rule, rule_terms)
            found = None if said is None else conflicts.conflict(kind, rule, said)
            if found is not None:
                return _conflict_draft(candidate, clause, sim, found, title, weigh,
                                       rulebook)
    return None


def _conflict_draft(candidate: Candidate, clause: Unit, sim: float, found: conflicts.Conflict,
                    title: str, weigh: Weights,
                    rulebook: Rulebook) -> Draft:
    target = candidate.unit
    overlap = weigh.coverage(target.body, clause)
    # The item that says it ("(b) … USD15,000"), or the lead-in that does ("must report
    # semi-annually … on the following matters:"); for "may" against "must", the item itself,
    # whose act the discretionary clause makes optional.
    # Likewise for a risk factor set aside: the item naming the factor, not the lead-in that
    # has all of them weighed.
    # A nested lead-in ("(a) customer risk factors, including whether the:") names the
    # category, not the factor or act; and the item is the one sharing the clause's rarer
    # words ("cash", not "customer" and "risk", which most risk factors share). A risk factor
    # is looked for among all the rule's items: the rule's lead-in, or any one item, may be
    # what came closest to the clause.
    # So for a measure held back for a tier: the item it is ("the Source of Wealth" of
    # "… having assigned a customer a high-risk rating or … a PEP, … it must: … identify and
    # verify:"), not the lead-in the tiers were read in; for a definition narrowed, the item
    # the policy takes out ("(b) a member of the Relevant Person's Group" of "a 'business
    # partner' includes:"); and for a review that leaves something out, the item it leaves
    # out, not the lead-in ("When undertaking ongoing CDD … must:").
    by_item = found.kind in ("modality", "risk", "tier", "definition", "review")
    if target.parts:
        items = list(target.parts)
    elif found.kind in ("risk", "tier", "review"):
        items = rulebook.items.get(clause_number(target) or "", [])
    else:
        items = []
    items = [p for p in items if not p.body.rstrip().endswith(":")] or items
    part = max(items, key=lambda p: weigh.shared(p.body, clause)) \
        if by_item and items else part_saying(target, found.rule)
    if not by_item:
        # (An act's phrase names what the act is done to; a quantity's names only itself.)
        said = clause if found.kind in conflicts.ACTS_AGAINST else _said_in(clause, found.policy)
        part = _item_meant(_lead_in_saying(part, found.rule, rulebook.lead_ins), said,
                           rulebook, weigh)
    quoted = part_saying(clause, found.policy)
    level = obligations.severity(_with_lead_in(part, target), kind="conflict")
    ref = obligations.reference(title, part.clause)
    return Draft(candidate, target, part.clause, "conflict", level, quoted, sim + overlap,
                 conflict_confidence(sim, candidate.score),
                 obligations.consequence(ref, level, kind="conflict"),
                 obligations.conflict_suggestion(ref, clause_number(quoted), found),
                 quote_unit=part, focus=found.rule, policy_focus=found.policy,
                 key=("conflict", target.clause or "", found.kind))


def _with_lead_in(part: Unit, group: Unit) -> Unit:
    """An item read with its list's lead-in (what a severity is judged on)."""
    if part is group or not group.parts:
        return part
    return replace(part, stem=group.parts[0].body if part is not group.parts[0] else "")


@dataclass(frozen=True)
class Rulebook:
    """What a finding may quote beyond the obligation it was read on: the lead-ins of the
    target's lists, and each rule's units by rule number ("7.1.2.(1)")."""

    lead_ins: dict[tuple[str | None, str], Unit]
    items: dict[str, list[Unit]]

    @classmethod
    def of(cls, context: Sequence[Unit]) -> Rulebook:
        items: dict[str, list[Unit]] = {}
        for u in context:
            if u.stem and (number := clause_number(u)):
                items.setdefault(number, []).append(u)
        return cls({(u.clause, u.body): u for u in context if u.body.endswith(":")}, items)


def _lead_in_saying(unit: Unit, phrase: str,
                    lead_ins: dict[tuple[str | None, str], Unit]) -> Unit:
    needle = phrase.lower()
    if not needle or needle in unit.body.lower() or needle not in unit.stem.lower():
        return unit
    base = clause_number(unit)
    return next((u for (clause, body), u in lead_ins.items()
                 if clause == base and needle in body.lower() and body in unit.stem), unit)


_CONJOINED = re.compile(r";|,\s+(?:and|but|while|whereas)\s+")


def _said_in(clause: Unit, phrase: str) -> Unit:
    """What a policy sentence states ``phrase`` of: the part that says it, where the sentence
    joins two statements ("… are documented by the MLRO, and copies of … will be provided
    … within ten Business Days"), without the phrase itself (its "Business Days" are not
    the business the rule's item names)."""
    at = clause.body.find(phrase) if phrase else -1
    if at < 0:
        return clause
    starts = [0] + [m.end() for m in _CONJOINED.finditer(clause.body, 0, at)]
    end = _CONJOINED.search(clause.body, at + len(phrase))
    body = clause.body[starts[-1]:at] + " " + clause.body[at + len(phrase):end.start()
                                                          if end else None]
    return replace(clause, body=body)


def _item_meant(part: Unit, clause: Unit, rulebook: Rulebook, weigh: Weights) -> Unit:
    """For a fact a list's lead-in states of all its items ("must document, and provide to
    the Regulator immediately, any of the following:"), the item the policy's clause states
    it of ("copies of the current Business Risk Assessment will be provided … within ten
    Business Days": "(a) the risk assessment of its business"), when its words point to one
    item over the others; else the lead-in. The finding cites the record the policy gets
    wrong, quoted under its lead-in."""
    if not part.body.rstrip().endswith(":"):
        return part
    items = [u for u in rulebook.items.get(clause_number(part) or "", [])
             if is_item_of(u.clause, part.clause) and not u.body.rstrip().endswith(":")]
    ranked = sorted(((weigh.shared(u.body, clause), k) for k, u in enumerate(items)),
                    reverse=True)
    if not ranked or ranked[0][0] <= 0 or (len(ranked) > 1 and ranked[1][0] >= ranked[0][0]):
        return part
    return items[ranked[0][1]]


def _acts_on(rule: Unit, clause: Unit, weigh: Weights) -> bool:
    """A discretionary clause is about the obligation's act when the verb its discretion
    governs ("may, where … considers it necessary, verify …", "endeavours to verify …") is
    in the obligation and so, mostly, is what the clause applies it to ("the beneficial
    owners of each corporate customer")."""
    found = measures.DISCRETIONARY.search(clause.body)
    if found is None:
        return True  # an approval: the shared terms already tie it to the obligation
    after = terms(clause.body[found.end():])
    rule_terms = set(terms(rule.body))
    if measures.is_effort(found[0]):
        # "endeavours to complete CDD before …", "where possible, the Firm verifies …": the
        # verb comes first or after its subject, and what it applies to follows it.
        return bool(set(after[:2]) & rule_terms) and \
            weigh.coverage(clause.body[found.end():], rule) > WORDED_ALIKE
    if not after or after[0] not in rule_terms:
        return False
    return weigh.coverage(clause.body[:found.start()], rule) > WORDED_ALIKE
