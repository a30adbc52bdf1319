"""A conversation's title from its first question: clean text (no "@[…]" mention markup, one
line, cut at a word; a long document name that ends in its abbreviation, "Market Conduct and
Client Assets Rules and Guidance (MCR)", as the abbreviation, so that chats about
one rulebook do not all begin with the same forty characters), and distinct from the user's
other titles, so a list of chats that began with the same question can still be told apart
("… (2)")."""

from __future__ import annotations

import re
from collections.abc import Iterable

from regintel.chat.question_text import MENTION

MAX_TITLE_CHARS = 80
# A name's own short form: "… Rules and Guidance (MCR)", "… Rulebook (CAR)".
_ABBREVIATION = re.compile(r"\(([A-Z][A-Za-z0-9&/.-]{1,11})\)$")
LONG_NAME_CHARS = 40
FALLBACK = "New conversation"


def clean_title(message: str) -> str:
    """The question as a title: mentions as their names, whitespace as single spaces, and at
    most MAX_TITLE_CHARS, cut at a word boundary with "…"."""
    text = " ".join(MENTION.sub(_mention_name, message).split())
    if len(text) <= MAX_TITLE_CHARS:
        return text or FALLBACK
    cut = text[:MAX_TITLE_CHARS - 1]
    if " " in cut[MAX_TITLE_CHARS // 2:]:
        cut = cut[:cut.rindex(" ")]
    return cut.rstrip(" ,;:.-–—") + "…"


def _mention_name(match: re.Match[str]) -> str:
    name = match.group(1).strip()
    short = _ABBREVIATION.search(name)
    return short.group(1) if short and len(name) > LONG_NAME_CHARS else name


def distinct_title(title: str, taken: Iterable[str]) -> str:
    """`title`, or `title (n)` with the first n that no other conversation uses."""
    used = set(taken)
    if title not in used:
        return title
    n = 2
    while f"{title} ({n})" in used:
        n += 1
    return f"{title} ({n})"

