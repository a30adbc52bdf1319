"""Section paths: the headings above a passage ("PART 3 › Chapter 14 › 14.2 Internal
reporting"). Formats that mark their headings (Markdown, HTML, DOCX) give them to us; in plain
text and PDFs the heading lines are found among the clause markers (``clauses.find_clauses``):
a keyword marker ("PART 3", "Chapter 14", "Article 6"), or a number followed by a short title
("14.2 Internal reporting"), but never a numbered rule that is a sentence ("14.2.1 A firm must
report…")."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence

from regintel.domain.documents import SECTION_SEPARATOR, ParsedHeading
from regintel.ingestion.clauses import find_clauses

# Nesting of the keyword headings of legislation and rulebooks (1 outermost); numbered
# headings nest below them by the depth of their number (14 < 14.2 < 14.2.1).
KEYWORD_LEVELS = {"part": 1, "schedule": 1, "annex": 1, "appendix": 1, "chapter": 2,
                  "section": 3, "article": 4, "regulation": 4, "rule": 4}
NUMBERED_BASE = 4
MAX_LEVEL = 9
MAX_TITLE = 100  # characters of one heading kept in a path
MAX_TITLE_WORDS = 12
# A heading names; a sentence with one of these verbs states something: it is a rule.
_PROSE = re.compile(r"\b(?:must|shall|should|may|will|is|are|means|applies|includes)\b")
_NUMBER_PART = re.compile(r"\(\w+\)|[^.()\s]+")
_SPACE = re.compile(r"\s+")


class SectionTracker:
    """The path of headings in effect, as headings arrive in document order: a heading closes
    every open heading at its level or deeper."""

    def __init__(self) -> None:
        self._open: list[tuple[int, str]] = []

    def enter(self, heading: ParsedHeading) -> str:
        while self._open and self._open[-1][0] >= heading.level:
            self._open.pop()
        self._open.append((heading.level, _title(heading.title)))
        return self.path or ""

    @property
    def path(self) -> str | None:
        return SECTION_SEPARATOR.join(title for _, title in self._open) or None


def page_sections(headings: Iterable[ParsedHeading],
                  tracker: SectionTracker) -> list[tuple[int, str]]:
    """(offset, path from there on) at each heading of one page, advancing ``tracker``."""
    return [(h.offset, tracker.enter(h)) for h in headings]


def chunk_sections(changes: Sequence[tuple[int, str]], offsets: Sequence[int],
                   before: str | None, start: int,
                   end: int) -> tuple[str | None, tuple[tuple[int, str], ...]]:
    """The path at ``start`` of a chunk spanning [start, end) of its page, and each change
    of path inside it as (offset in the chunk, path). ``before``: the path the page opens
    in; ``offsets``: the offsets of ``changes``."""
    i = bisect_right(offsets, start)
    section = changes[i - 1][1] if i else before
    inside: list[tuple[int, str]] = []
    while i < len(changes) and changes[i][0] < end:
        inside.append((changes[i][0] - start, changes[i][1]))
        i += 1
    return section, tuple(inside)


def text_headings(text: str) -> list[ParsedHeading]:
    """The heading lines of text whose format marks none (plain text, a PDF page)."""
    found: list[ParsedHeading] = []
    for offset, label in find_clauses(text):
        line_start = text.rfind("\n", 0, offset) + 1
        line_end = _line_end(text, offset)
        line = text[line_start:line_end]
        if line.lstrip(" ").startswith("#"):  # a Markdown-style heading in a text file
            level = len(line.lstrip(" ")) - len(line.lstrip(" ").lstrip("#"))
            found.append(ParsedHeading(offset=line_start, level=min(level, MAX_LEVEL),
                                       title=_title(line.strip(" #\t"))))
            continue
        heading = _numbered_or_keyword(text, offset, label, line_end)
        if heading is not None:
            found.append(heading)
    return found


def _numbered_or_keyword(text: str, offset: int, label: str,
                         line_end: int) -> ParsedHeading | None:
    marker = re.compile(r"\s+".join(map(re.escape, label.split())) + r"[.)]?")
    m = marker.match(text, offset)
    if m is None:
        return None
    rest = " ".join(text[m.end():line_end].split())
    following = _next_line(text, line_end)
    keyword = KEYWORD_LEVELS.get(label.split()[0].lower())
    if keyword is not None:
        level = keyword
        if not rest and _names(following, None) and not find_clauses(following):
            rest = following  # "Article 6" above its title "Lawfulness of processing"
        elif rest and not _names(rest, following):
            return None
    else:
        if not _names(rest, following):
            return None  # a rule, or a number with nothing after it
        level = NUMBERED_BASE + len(_NUMBER_PART.findall(label))
    return ParsedHeading(offset=offset, level=min(level, MAX_LEVEL),
                         title=_title(f"{' '.join(text[offset:m.end()].split())} {rest}"))


def _names(rest: str, following: str | None) -> bool:
    """Whether the words after a marker are a title rather than the start of a sentence: short,
    capitalised, no verb of a rule, and not continued in lower case on the next line."""
    words = rest.split()
    if not words or len(rest) > 80 or len(words) > MAX_TITLE_WORDS:
        return False
    if rest[0].islower() or rest.endswith((".", ",", ";", ":")) or _PROSE.search(rest):
        return False
    return not (following and following[0].islower())


def _line_end(text: str, offset: int) -> int:
    end = text.find("\n", offset)
    return len(text) if end < 0 else end


def _next_line(text: str, line_end: int) -> str:
    """The next line with text after the line ending at ``line_end``, collapsed."""
    pos = line_end
    while pos < len(text):
        end = _line_end(text, pos + 1)
        line = " ".join(text[pos + 1:end].split())
        if line:
            return line
        pos = end
    return ""


def _title(text: str) -> str:
    title = _SPACE.sub(" ", text).strip()
    return title if len(title) <= MAX_TITLE else title[:MAX_TITLE - 1].rstrip() + "…"
