"""A sample where the rules ask for all. The AML Rulebook has the review of a firm's AML
systems include "an analysis of all Suspicious Activity/Transaction Reports"; a policy whose
review takes "a sample of the STRs filed during the year" looks at some of them only. (A
rule that itself asks for a sample - "a sample testing of customer documentation" - asks
for no more.) facets.read records both sides; conflicts.comparable checks that the two name
the same things."""

from __future__ import annotations

import re

from regintel.chat.offline.lexical import terms

_WHAT = r"(?P<what>(?:[\w/-]+\s+){0,3}?[\w/-]+?)(?=\s+(?:to|that|which|who|filed|made|held|" \
        r"received|in|for|of|during|under|and|or)\b|[,.;:)]|$)"
_EVERY = re.compile(rf"\b(?:all|every|each)\s+(?:of\s+(?:the|its)\s+)?{_WHAT}", re.I)
_SAMPLE = re.compile(rf"\b(?:a|an)\s+(?:\w+\s+)?sample\s+of\s+(?:the\s+|its\s+|our\s+)?{_WHAT}",
                     re.I)
_ACRONYM = re.compile(r"^([A-Z]{2,})s?$")


def every(text: str) -> list[tuple[str, str]]:
    """What a text asks for all of ("Suspicious Activity/Transaction Reports"), each with
    its words ("all Suspicious Activity/Transaction Reports")."""
    return [(m["what"], m[0]) for m in _EVERY.finditer(text)]


def sampled(text: str) -> tuple[str, str] | None:
    """What a policy takes a sample of ("STRs"), and its words ("a sample of the STRs");
    None when it samples nothing."""
    m = _SAMPLE.search(text)
    return (m["what"], m[0]) if m else None


def same_things(asked: str, taken: str) -> bool:
    """Whether a sample's things are the ones the rule asks for all of: the same head noun
    ("customer files" are not "each customer"), or an acronym of the rule's words ("STRs"
    for "Suspicious Activity/Transaction Reports": its letters are initials of them, in
    order, first and last included)."""
    heads = [terms(asked), terms(taken)]
    if all(heads) and heads[0][-1] == heads[1][-1]:
        return True
    initials = "".join(w[0].upper() for w in re.findall(r"[A-Za-z]+", asked))
    return any(_abbreviates(m[1], initials) for word in taken.split()
               if (m := _ACRONYM.match(word)))


def _abbreviates(acronym: str, initials: str) -> bool:
    if not initials or acronym[0] != initials[0] or acronym[-1] != initials[-1]:
        return False
    rest = iter(initials)
    return all(letter in rest for letter in acronym)
