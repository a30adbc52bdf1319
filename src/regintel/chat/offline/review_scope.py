"""A review that a policy says leaves out what the rules have it cover. The AML Rulebook has
the periodic review of a customer check the risk rating ("periodically review each customer
to ensure that the risk rating assigned … remains appropriate") and screen the customer
("must review its customers, their businesses, and Transactions, against Sanctions Lists
when complying with Rule 8.6.1(d)"). A policy whose review "refreshes the CDD file but does
not re-rate the client", or "does not include sanctions screening", leaves that undone,
whatever else it says the review does. facets.read records the policy's side;
conflicts.comparable checks that the rule has the review do what the policy leaves out."""

from __future__ import annotations

import re

from regintel.chat.offline.lexical import terms

# The review as a noun ("the periodic review", "our annual review"), then what it does not do.
_LEAVES_OUT = re.compile(
    r"\b(?:the|our|each|every|this|that)\s+(?:(?:periodic|annual|ongoing|regular|scheduled|"
    r"file|client|customer)\s+){0,2}review\b[^.;]{0,60}?\b(?:does|do|will)\s+not\s+"
    r"(?:include|cover|extend\s+to|involve)?\s*(?P<what>(?:[\w-]+\s+){0,3}[\w-]+)", re.I)
_REVIEWS = re.compile(r"\breview", re.I)
# terms() drops the stopwords; the party reviewed is no part of what the review leaves out
_GENERIC = frozenset(terms("client customer"))


def leaves_out(text: str) -> tuple[frozenset[str], str] | None:
    """What a policy's review does not do, as stems ("sanction", "screen"), and its words
    ("The periodic review does not include sanctions screening"); None when it says none."""
    m = _LEAVES_OUT.search(text)
    if m is None:
        return None
    what = frozenset(terms(m["what"])) - _GENERIC
    return (what, m[0]) if what else None


def has_review_do(rule_text: str, what: frozenset[str]) -> bool:
    """Whether a rule has a review do what the policy's review leaves out: it speaks of a
    review, and names it (a word of the rule starts with the stem: "re-rate" is the rule's
    "rating" done again)."""
    if not _REVIEWS.search(rule_text):
        return False
    stems = [w.removeprefix("re-") for w in what]
    return any(t.startswith(w) for t in terms(rule_text) for w in stems if len(w) >= 3)
