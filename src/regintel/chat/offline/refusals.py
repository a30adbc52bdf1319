"""Whether a policy refuses what it goes on to name. Several readers look for a grant ("may
start preparing … while CDD is still in progress", "at the customer's next scheduled review",
"low or medium risk", "an undisclosed principal") that a word before it can turn round ("may
not", "never", "does not wait for", "we decline to act for"); they share one list of such
words, so a refusal one reader knows is known to all."""

from __future__ import annotations

import re

_REFUSAL = re.compile(
    r"\b(?:not|never|no|nothing|neither|nor|refus\w*|declin\w*|prohibit\w*)\b", re.I)
# "only" holds a grant back to what follows it ("only … low risk", "may only … once CDD is
# complete"): a refusal where a reader looks for a grant to more than the rule allows.
_ONLY = re.compile(r"\bonly\b", re.I)


def refused(text: str, start: int = 0, end: int | None = None, *, only: bool = False) -> bool:
    """Whether ``text[start:end]`` refuses (or, with ``only``, limits) what follows it."""
    end = len(text) if end is None else end
    if _REFUSAL.search(text, start, end):
        return True
    return only and _ONLY.search(text, start, end) is not None


def refused_in_clause(text: str, at: int) -> bool:
    """Whether the clause that ``text[at:]`` is in refuses it before ``at`` ("it does not
    wait for the next periodic review"; a refusal in an earlier sentence or clause is
    another statement's)."""
    start = max(text.rfind(";", 0, at), text.rfind(".", 0, at)) + 1
    return refused(text, start, at)
