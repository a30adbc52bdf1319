"""Sentence-aware chunking within pages. Each chunk is an exact slice of one page's text
(``page.text[char_start:char_end] == chunk.text``) so citations can point at the source, and
carries the clause it falls under, its section path (the headings above it) and, in a
document without real pages, the lines of the document it spans."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from regintel.domain.documents import ChunkDraft, ParsedDocument
from regintel.ingestion.clauses import find_clauses
from regintel.ingestion.sections import (
    SectionTracker,
    chunk_sections,
    page_sections,
    text_headings,
)
from regintel.sentences import SENTENCE_END

# A clause marker this close after where the chunk's own text begins names the chunk: the
# chunk is about that clause, not the tail of the previous one.
CLAUSE_LOOKAHEAD = 100
# A line this short that starts with a clause marker is a heading: no chunk ends on it.
MAX_HEADING_LINE = 100

# Candidate chunk ends, in order of preference; at each end e, text[e - 1] is not a space.
# Patterns that start with a literal newline are found by a fast scan; the spaces before the
# newline are trimmed in _trimmed_ends.
_PARAGRAPH_BREAK = re.compile(r"\n(?:[^\S\n]*\n)+")
_NEWLINE = re.compile(r"\n")
_NON_SPACE = re.compile(r"\S")
_WORD_START = re.compile(r"(?<=\s)\S")
_WORD_END = re.compile(r"(?<=\S)\s")


def chunk_document(doc: ParsedDocument, *, size: int = 1000,
                   overlap: int = 150) -> list[ChunkDraft]:
    """Chunks of about ``size`` characters, consecutive chunks on a page sharing about
    ``overlap``. Breaks prefer paragraph ends, then sentence ends, then line ends, then spaces;
    a word is split only when it alone is longer than twice ``size``."""
    if size < 2 or not 0 <= overlap < size:
        raise ValueError(f"need size >= 2 and 0 <= overlap < size (got {size=}, {overlap=})")
    chunks: list[ChunkDraft] = []
    clause: str | None = None  # a clause runs on across page breaks, and so does a section
    sections = SectionTracker()
    # The format's own headings when it marks any; else heading lines found in the text.
    marked = any(page.headings for page in doc.pages)
    first_line = 1  # of the page, in the whole document's text (form feeds end no line)
    for page in doc.pages:
        text = page.text
        markers = find_clauses(text)
        offsets = [offset for offset, _ in markers]
        opens_in = sections.path
        changes = page_sections(page.headings if marked else text_headings(text), sections)
        change_offsets = [offset for offset, _ in changes]
        newlines = [m.start() for m in _NEWLINE.finditer(text)] if not doc.paged else []
        for start, end, own in _PageSplitter(text, size, overlap, offsets).spans():
            clause = _clause_at(offsets, markers, own, end) or clause
            section, section_changes = chunk_sections(changes, change_offsets, opens_in,
                                                      start, end)
            lines: dict[str, int] = {} if doc.paged else {
                "line_start": first_line + bisect_left(newlines, start),
                "line_end": first_line + bisect_left(newlines, end - 1)}
            chunks.append(ChunkDraft(ordinal=len(chunks), text=text[start:end],
                                     page_start=page.number, page_end=page.number,
                                     char_start=start, char_end=end, clause=clause,
                                     section=section, section_changes=section_changes,
                                     **lines))
        if markers:
            clause = markers[-1][1]
        first_line += len(newlines)
    return chunks


def _trimmed_ends(text: str, pattern: re.Pattern[str]) -> list[int]:
    """Where a chunk ending before each match would end, trailing spaces excluded; matches
    preceded only by whitespace back to the previous line (blank lines) give none."""
    ends: list[int] = []
    for m in pattern.finditer(text):
        e = m.start()
        while e and text[e - 1] != "\n" and text[e - 1].isspace():
            e -= 1
        if e and not text[e - 1].isspace():
            ends.append(e)
    return ends


def _clause_at(offsets: list[int], markers: Sequence[tuple[int, str]], own: int,
               end: int) -> str | None:
    """The marker where the chunk's own text (after the overlap it repeats) starts; else the
    first within CLAUSE_LOOKAHEAD characters of it; else the last one before it."""
    i = bisect_right(offsets, own)
    if i and offsets[i - 1] == own:
        return markers[i - 1][1]
    if i < len(offsets) and offsets[i] < min(end, own + CLAUSE_LOOKAHEAD):
        return markers[i][1]
    return markers[i - 1][1] if i else None


class _PageSplitter:
    def __init__(self, text: str, size: int, overlap: int, headings: list[int]) -> None:
        self.text, self.size, self.overlap = text, size, overlap
        self.headings = headings  # offsets of clause markers, sorted
        self.last = len(text.rstrip())
        self.ends = [
            _trimmed_ends(text, _PARAGRAPH_BREAK),
            [m.end() for m in SENTENCE_END.finditer(text)],
            _trimmed_ends(text, _NEWLINE),
        ]

    def spans(self) -> list[tuple[int, int, int]]:
        """(start, end, own): the chunk is text[start:end]; its new text starts at ``own``
        (what precedes it repeats the previous chunk)."""
        text, size = self.text, self.size
        first = _NON_SPACE.search(text)
        if first is None:
            return []
        last = self.last
        start = own = first.start()
        spans: list[tuple[int, int, int]] = []
        while last - start > size:
            end = self._end(start, own + 1)  # at least one character of new text
            spans.append((start, end, own))
            if end >= last:  # a word running past the window ended the page
                return spans
            own = self._next_non_space(end)
            start = self._overlap_start(start, end, own)
        spans.append((start, last, own))
        return spans

    def _end(self, start: int, floor: int) -> int:
        """The best break in [start + size/2, start + size]; else the last word end after
        ``floor``; else the first word end after the window; else a hard cut."""
        hi = start + self.size
        lo = max(start + self.size // 2, floor)
        for ends in self.ends:
            i = bisect_right(ends, hi) - 1
            while i >= 0 and ends[i] >= lo:
                if not self._ends_with_heading(ends[i]):
                    return ends[i]
                i -= 1
        text = self.text
        for e in range(hi, floor - 1, -1):  # a shorter chunk rather than a split word
            if text[e].isspace() and not text[e - 1].isspace():
                return e
        word_end = _WORD_END.search(text, hi, start + 2 * self.size)
        if word_end is not None:
            return word_end.start()
        if self.last <= start + 2 * self.size:
            return self.last  # the word runs to the end of the page
        return hi  # a "word" of 2*size is not a word: cut it

    def _ends_with_heading(self, end: int) -> bool:
        """True if the text before ``end`` ends in a short clause-heading line such as
        "2.2<TAB>Client Categorisation": the heading belongs with the next chunk."""
        line_start = self.text.rfind("\n", 0, end) + 1
        if end - line_start > MAX_HEADING_LINE:
            return False
        i = bisect_left(self.headings, line_start)
        return i < len(self.headings) and self.headings[i] < end

    def _overlap_start(self, start: int, end: int, own: int) -> int:
        """A sentence start (else a line start, else a word start) about ``overlap``
        characters before ``end``; ``own`` (no overlap) if there is none, or if a long blank
        run separates the chunk from the new text."""
        if self.overlap == 0 or own - end > self.overlap:
            return own
        target = end - self.overlap
        lo, hi = max(start + 1, end - self.overlap * 3 // 2), end - self.overlap // 2
        best: int | None = None
        for ends in self.ends[1:]:  # sentence, then line ends
            starts = [self._next_non_space(e)
                      for e in ends[bisect_left(ends, lo - 1):bisect_right(ends, hi)]]
            best = self._closest([s for s in starts if lo <= s <= hi and s < end], target)
            if best is not None:
                break
        if best is None:
            words = [m.start() for m in _WORD_START.finditer(self.text, lo, hi + 1)]
            best = self._closest([s for s in words if s < end], target)
        # The next chunk must reach past ``own``; from too far back it could not.
        return own if best is None or own - best >= self.size // 2 else best

    def _next_non_space(self, pos: int) -> int:
        m = _NON_SPACE.search(self.text, pos)
        return m.start() if m else len(self.text)

    @staticmethod
    def _closest(candidates: list[int], target: int) -> int | None:
        return min(candidates, key=lambda s: abs(s - target)) if candidates else None
