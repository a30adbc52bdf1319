"""What a policy says its firm does not do ("Heron offers no correspondent or nested
services", "The Firm does not provide services in Virtual Assets"), and the rules that are
then out of its scope: those whose section heading, or own text, names the activity. A
regulation's rules on correspondent banking bind a remitter that offers none only if it
starts to; reporting each of them as an omission buries the findings that matter. So do the
rules of a line of business the policy never names (life insurance)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from regintel.chat.offline.lexical import terms
from regintel.chat.offline.segments import Unit

_ACTIVITY = r"((?:[\w-]+\s+){0,3}?[\w-]+)"
# Only statements of what the firm does not offer: "does not carry out a transaction that it
# suspects …" is a control, not a scope, and is not read.
_NOT_OFFERED = re.compile(
    r"\b(?:offers?|provides?|carries\s+on|engages?\s+in)\s+no\s+" + _ACTIVITY +
    r"\s+(?P<noun>services?|business|activit(?:y|ies)|products?)\b|"
    r"\bdoes\s+not\s+(?:offer|provide|carry\s+on|engage\s+in)\s+(?:any\s+)?(?:services?\s+"
    r"(?:in|involving|relating\s+to)\s+)?" + _ACTIVITY + r"(?=\s*(?:[.;,]|\band\b|$))",
    re.I)
_ALTERNATIVES = re.compile(r",\s*|\s+or\s+|\s+and\s+", re.I)


@dataclass(frozen=True)
class Activity:
    name: str  # as the policy writes it ("correspondent")
    stems: frozenset[str]


def not_offered(policy_text: str) -> list[Activity]:
    """The activities the policy says its firm does not offer ("correspondent or nested" is
    two), first mention first."""
    found: dict[frozenset[str], Activity] = {}
    for m in _NOT_OFFERED.finditer(policy_text):
        for part in _ALTERNATIVES.split(m[1] or m[3]):  # either branch's activity
            stems = frozenset(terms(part))
            if stems and stems <= _EVERYWHERE:
                # "no correspondent banking or money services": "money" alone would put
                # every rule on money laundering out of scope; the activity is "money
                # services".
                if not m["noun"]:
                    continue
                part = f"{part.strip()} {m['noun']}"
                stems = frozenset(terms(part))
            if stems and stems not in found:
                found[stems] = Activity(part.strip(), stems)
    return list(found.values())


# Words of an AML rulebook's every subject, which name no activity by themselves.
_EVERYWHERE = frozenset(terms("money laundering terrorist financing finance financial "
                              "sanctions customer client transaction account fund funds"))


def out_of_scope(unit: Unit, activities: Sequence[Activity]) -> bool:
    """Whether ``unit`` is about an activity the firm does not offer: its section heading,
    or its own text, names one."""
    if not activities:
        return False
    named = [set(terms(unit.section)), set(terms(unit.body))]
    return any(activity.stems <= words for activity in activities for words in named)


# Rules for one line of business (as the rule names it, as a policy would): "for life
# insurance or other similar policies a Relevant Person must …" binds an insurer, whose
# policy cannot fail to say "insurance"; a firm whose policy never does writes none, and
# those rules are no omission of its (six false omissions on the development policies, no
# planted gap).
_LINES = [
    (re.compile(r"\blife insurance\b|\binsurance polic", re.I),
     re.compile(r"\binsur(?:ance|er|ed)\b", re.I)),
]


def lines_not_named(policy_text: str) -> list[re.Pattern[str]]:
    """How rules name each line of business the policy never names."""
    return [rule for rule, policy in _LINES if not policy.search(policy_text)]


def on_line(rule_text: str, lines: Sequence[re.Pattern[str]]) -> bool:
    """Whether a rule's text is about one of ``lines``."""
    return any(line.search(rule_text) for line in lines)
