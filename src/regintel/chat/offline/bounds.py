"""A share threshold a policy sets where the rule sets none. The AML Rulebook has a firm
identify "each beneficiary of the trust"; a policy that identifies only "each beneficiary
who is entitled to 25% or more of the trust property" leaves out the others, however
usual the 25 % is elsewhere (it is the rules' own test for owners of a body corporate, which
the rule on bodies corporate states and so is not contradicted). facets.read records the
policy's side; conflicts.comparable checks that the rule names the same persons with no share."""

from __future__ import annotations

import re

from regintel.chat.offline.lexical import stem

_BOUNDED = re.compile(
    r"\b(?:each|every|any|all)\s+(?:the\s+)?(?P<noun>[a-z][\w-]+?)(?:s|es)?\s+(?:who|which|"
    r"that)\s+(?:is|are)?\s*(?:entitled|holds?|owns?|has|have|receives?)\b[^.;]{0,60}?"
    r"\b\d+(?:\.\d+)?\s?(?:%|per ?cent)(?:\s+or\s+more)?", re.I)


def bounded(text: str) -> tuple[str, str] | None:
    """The persons a policy holds to a share ("beneficiar"), as a stem, and its words ("each
    beneficiary who is entitled to 25% or more"); None when it sets no such share."""
    m = _BOUNDED.search(text)
    return (stem(m["noun"].lower()), m[0]) if m else None


def named_without_share(rule_text: str, noun: str) -> str | None:
    """The words by which a rule names every one of those persons ("each beneficiary of the
    trust"), when it sets no share of its own; None otherwise."""
    if re.search(r"\d\s?(?:%|per ?cent)", rule_text, re.I):
        return None
    for m in re.finditer(r"\b(?:each|every|any|all)\s+(?:the\s+)?([a-z][\w-]*)((?:\s+[\w-]+){0,3})",
                         rule_text, re.I):
        if stem(m[1].lower()) == noun:
            return m[0]
    return None
