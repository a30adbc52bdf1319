"""Something the rules include that a policy puts outside its scope. The AML Rulebook has a
firm's risk assessment take into account "that money laundering risks include the risk of
terrorist financing, proliferation financing, … and sanctions non-compliance"; a policy
whose business risk assessment says "Proliferation financing and sanctions risk are outside
its scope" leaves out what the rule includes. facets.read records both sides;
conflicts.comparable checks that what is left out is what the rule includes."""

from __future__ import annotations

import re

from regintel.chat.offline.lexical import terms

_INCLUDES = re.compile(r"\binclude[sd]?\b(?P<what>[^.;]{5,240})", re.I)
_OUTSIDE = re.compile(r"(?:^|[.;:]\s*)(?P<what>[^.;:]{5,120}?)\s+(?:is|are|falls?|lies?|lie)\s+"
                      r"outside\s+(?:its|their|the)\s+scope\b", re.I)
# Words any list of risks shares with any other.
_COMMON = frozenset(terms("risk risks money laundering include including the and"))
MIN_SHARED = 2  # content words of what is left out that the rule includes


def included(text: str) -> tuple[frozenset[str], str] | None:
    """What a rule says something includes, as stems, and its words; None when it says
    nothing includes anything."""
    m = _INCLUDES.search(text)
    return (frozenset(terms(m["what"])) - _COMMON, m[0]) if m else None


def left_outside(text: str) -> tuple[frozenset[str], str] | None:
    """What a policy puts outside its (or a document's) scope, as stems, and its words
    ("Proliferation financing and sanctions risk are outside its scope"); None when it puts
    nothing there."""
    m = _OUTSIDE.search(text)
    return (frozenset(terms(m["what"])) - _COMMON, m[0].lstrip(".;: ")) if m else None


def leaves_out_included(included_stems: frozenset[str], outside: frozenset[str]) -> bool:
    """Whether what is left out is among what the rule includes."""
    return len(included_stems & outside) >= MIN_SHARED
