"""A document's own structure, read from its chunks' section paths ("14 SUSPICIOUS ACTIVITY
REPORTS › 14.2 Internal reporting requirements"): the parts a summary walks in order. The
level walked is the outermost one that divides the document - a title heading over the whole
is skipped, and so is a level of two halves - whatever the document calls its parts (parts,
chapters, articles, numbered headings)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from regintel.domain.documents import SECTION_SEPARATOR, ChunkSpan

MIN_PARTS = 3  # fewer headings at a level do not divide a document: look one level deeper
MAX_LEVEL = 3
_KEYWORD = re.compile(r"^(part|chapter|title|section|schedule|article|annex)\b", re.I)


@dataclass
class Part:
    heading: str
    ordinals: list[int] = field(default_factory=list)  # chunks that start in it, in order


def _paths(chunk: ChunkSpan) -> list[str]:
    return [p for p in (chunk.section, *(path for _, path in chunk.section_changes)) if p]


def _at(path: str | None, level: int) -> str | None:
    if not path:
        return None
    parts = path.split(SECTION_SEPARATOR)
    return parts[level] if len(parts) > level else None


def level_of(chunks: Sequence[ChunkSpan]) -> int | None:
    """The level a summary walks, or None when the chunks record no headings."""
    for level in range(MAX_LEVEL):
        headings = {h for c in chunks for p in _paths(c) if (h := _at(p, level))}
        if len(headings) >= MIN_PARTS:
            return level
    return None


def parts_of(chunks: Sequence[ChunkSpan], level: int) -> list[Part]:
    """The parts at ``level`` in document order, each with the chunks that start in it (a
    part that starts inside a chunk is listed too, with no chunk of its own)."""
    parts: dict[str, Part] = {}
    for chunk in sorted(chunks, key=lambda c: c.ordinal):
        start = _at(chunk.section, level)
        for path in _paths(chunk):
            heading = _at(path, level)
            if heading and heading not in parts:
                parts[heading] = Part(heading)
        if start:
            parts[start].ordinals.append(chunk.ordinal)
    return list(parts.values())


def heading_at(chunk: ChunkSpan, offset: int, level: int) -> str | None:
    return _at(chunk.section_at(offset), level)


def noun(parts: Sequence[Part]) -> str:
    """What the document calls its parts ("chapters", "articles"), from their headings;
    "chapters" when they are only numbered."""
    words = [m.group(1).lower() for p in parts if (m := _KEYWORD.match(p.heading))]
    if words and len(words) * 2 >= len(parts):
        word = max(set(words), key=words.count)
        return f"{word}s"
    return "chapters"


def sample(chunks: Sequence[ChunkSpan], level: int, *, per_part: int,
           cap: int) -> list[int]:
    """Ordinals of the chunks a summary reads: the first ``per_part`` of each part (where a
    part states what it is about and its first rules), one each when that passes ``cap``;
    a part that starts inside a chunk is read from that chunk."""
    parts = parts_of(chunks, level)
    if len(parts) * per_part > cap:
        per_part = 1
    chosen: set[int] = set()
    for part in parts:
        if part.ordinals:
            # The part's first chunk, then others spread over it.
            n = len(part.ordinals)
            chosen.update(part.ordinals[(i * n) // per_part] for i in range(min(per_part, n)))
            continue
        opening = next((c.ordinal for c in chunks
                        if any(_at(p, level) == part.heading for p in _paths(c))), None)
        if opening is not None:
            chosen.add(opening)
    return sorted(chosen)
