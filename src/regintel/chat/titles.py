"""A conversation's title from its first question: clean text (no "@[…]" mention markup, one
line, cut at a word), and distinct from the user's other titles, so a list of chats that began
with the same question can still be told apart ("… (2)")."""

from __future__ import annotations

import re
from collections.abc import Iterable

MAX_TITLE_CHARS = 80
_MENTION = re.compile(r"@\[([^\]]*)\]")
FALLBACK = "New conversation"


def clean_title(message: str) -> str:
    """The question as a title: mentions as their names, whitespace as single spaces, and at
    most MAX_TITLE_CHARS, cut at a word boundary with "…"."""
    text = " ".join(_MENTION.sub(r"\1", message).split())
    if len(text) <= MAX_TITLE_CHARS:
        return text or FALLBACK
    cut = text[:MAX_TITLE_CHARS - 1]
    if " " in cut[MAX_TITLE_CHARS // 2:]:
        cut = cut[:cut.rindex(" ")]
    return cut.rstrip(" ,;:.-–—") + "…"


def distinct_title(title: str, taken: Iterable[str]) -> str:
    """`title`, or `title (n)` with the first n that no other conversation uses."""
    used = set(taken)
    if title not in used:
        return title
    n = 2
    while f"{title} ({n})" in used:
        n += 1
    return f"{title} ({n})"

