"""A document named once per answer: its first provision carries the full title, every later
one the document's short name ("Market Conduct and Listing Rules and
Guidance (MCR), 14.3.4: …" then "MCR 14.3.3: …"), as an officer writes a memo. A 62-character title
on every bullet buries the rules under it.

The short name is the document's own: the abbreviation its title gives in parentheses
("… Rulebook (COBS)"), or one that opens the title ("MAR (Regulation (EU) No 596/2014)"). A
title without one, or whose short name another document of the answer shares, is repeated
whole: a shortened name must never leave the reader unsure which document is cited."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from regintel.chat.named_documents import short_names

_OPENING_ACRONYM = re.compile(r"^([A-Z][A-Z0-9]{1,9})\s*\(")
_OPENING = re.compile(r"^\s*(?:- |Under )")


def short_name(title: str) -> str | None:
    """The document's own abbreviation of its title, if it gives exactly one."""
    given = short_names(title)
    if len(given) == 1:
        return next(iter(given))
    opening = _OPENING_ACRONYM.match(title)
    return opening[1] if opening and not given else None


def shortened(lines: Sequence[str], titles: Iterable[str]) -> list[str]:
    """``lines`` with each title's later "<title>, <clause>:" prefixes as "<short> <clause>:"
    and a later bare "<title>:" as "<short>:"; the first mention of each stays whole. Only a
    line's opening ("- ", "Under ") is read: a quote is never changed."""
    shorts = {title: short_name(title) for title in set(titles)}
    taken = [s for s in shorts.values() if s is not None]
    usable = {t: s for t, s in shorts.items() if s is not None and taken.count(s) == 1}
    seen: set[str] = set()
    out: list[str] = []
    for line in lines:
        opening = _OPENING.match(line)
        title = next((t for t in sorted(usable, key=len, reverse=True) if opening and (
            line.startswith(f"{t}, ", opening.end()) or line.startswith(f"{t}:", opening.end()))),
            None)
        if title is not None and opening is not None:
            if title in seen:
                rest = line[opening.end() + len(title):]
                rest = f" {rest[2:]}" if rest.startswith(", ") else rest
                line = f"{line[:opening.end()]}{usable[title]}{rest}"
            seen.add(title)
        out.append(line)
    return out
