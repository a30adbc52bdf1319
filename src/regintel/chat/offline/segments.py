"""Documents as clause units for the offline audit: the text between clause markers
("8.4.1", "4.6", "Article 6") and list-item markers ("(a)", "(ii)", bullets; inside a line
too, when a PDF sets a list as one paragraph), long blocks split into sentences. Each unit
keeps where it sits on its page (for a verbatim quote from the chunk that holds it), its
clause label ("8.4.1(e)"), the lead-in it completes ("it must:") and the headings above
it."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from uuid import UUID

from regintel.chat.evidence import normalise, quote_around
from regintel.domain.chat import MAX_QUOTE_CHARS
from regintel.domain.documents import ChunkHit, Document, StoredChunk
from regintel.ingestion.clauses import find_clauses
from regintel.sentences import sentence_spans

# A block up to this long is one unit; a longer one is split into its sentences.
MAX_UNIT_CHARS = 350
# A heading is a short marked line without a sentence end.
MAX_HEADING_CHARS = 90
_ITEM = re.compile(
    r"^[ \t]*(?:\((?P<item>[a-z]{1,4}|[A-Z]|\d{1,2})\)|(?P<bullet>[•▪◦●■-]))[ \t]+", re.M)
# An item label inside a line, after the previous item's ";" or the lead-in's ":" (a list a
# PDF renders as one paragraph: "…, FCC: (a) carry out CDD …; (b) obtain …; and (c) …").
# Taken only in sequence (see _inline_items): "under Rule 8.3.1(1)(b)" is no item.
_INLINE_ITEM = re.compile(r"(?P<after>[;:])\s+(?:(?:and|or)\s+)?"
                          r"(?P<mark>\((?P<item>[a-z]{1,4})\))[ \t]+")
_ROMANS = ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii")
_ROMAN = set(_ROMANS)
_DIGITS = re.compile(r"\d+")
_GUIDANCE = re.compile(r"^\d[\d.]*\.?Guidance\b")
# Guidance labels with a title, which the clause markers do not take for headings.
_GUIDANCE_LINE = re.compile(r"^[ ]{0,3}(\d{1,3}(?:\.[0-9A-Z]{1,4})*\.Guidance\b[^\t\n]{0,120}?)"
                            r"\.?(?=\t|[ ]*$)", re.M)
_LRM = re.compile("[\u200e\u200f\u202a-\u202e]")


@dataclass(frozen=True)
class Unit:
    document_id: UUID
    page: int
    start: int  # offsets in the page text
    end: int
    text: str  # the unit, whitespace normalised (its marker included)
    body: str  # the text without its marker
    clause: str | None  # "8.4.1(e)", "4.6", "12.1.1.(2)"
    stem: str  # the lead-in an item completes ("A Relevant Person must:"), or ""
    chapter: str  # the enclosing top-level heading, or ""
    section: str  # the nearest heading, or ""
    guidance: bool  # under a "Guidance" label: explanatory, not binding
    parts: tuple[Unit, ...] = ()  # a list's lead-in, items and closing words (unit_lists)

    @property
    def context(self) -> str:
        """What the unit means in place: its section heading, lead-in and text."""
        return " ".join(p for p in (self.section, self.stem, self.body) if p)


def page_texts(chunks: Iterable[StoredChunk]) -> dict[int, str]:
    """Each page's text rebuilt from its chunks (exact slices of it). The whitespace between
    chunks that do not overlap is not stored; newlines stand in for it, so markers that
    began a line still do."""
    pages: dict[int, str] = {}
    for chunk in sorted(chunks, key=lambda c: (c.page_start, c.char_start)):
        text = pages.get(chunk.page_start, "")
        if chunk.char_start <= len(text):
            text = text[:chunk.char_start] + chunk.text + text[chunk.char_end:]
        else:
            text += "\n" * (chunk.char_start - len(text)) + chunk.text
        pages[chunk.page_start] = text
    return pages


def boilerplate_lines(pages: dict[int, str]) -> set[str]:
    """Running headers and footers: lines (digits ignored, so "Page 3 of 16" counts) that
    recur on at least three pages and on at least a third of them."""
    if len(pages) < 3:
        return set()
    seen: Counter[str] = Counter()
    for text in pages.values():
        seen.update({_line_key(line) for line in text.splitlines() if line.strip()})
    floor = max(3, len(pages) / 3)
    return {line for line, n in seen.items() if n >= floor}


def _line_key(line: str) -> str:
    return _DIGITS.sub("#", normalise(line))


def segment(document_id: UUID, pages: dict[int, str], *,
            max_unit_chars: int = MAX_UNIT_CHARS) -> list[Unit]:
    """The units of a document's pages, in order; running headers and footers left out. A
    clause, its lead-in and its headings carry on across page breaks. A block longer than
    ``max_unit_chars`` is split into sentences (0: always)."""
    boilerplate = boilerplate_lines(pages)
    state = _State(max_unit_chars)
    units: list[Unit] = []
    for page in sorted(pages):
        units.extend(_segment_page(document_id, page, pages[page], state, boilerplate))
    return units


def _segment_page(document_id: UUID, page: int, text: str, state: _State,
                  boilerplate: set[str]) -> list[Unit]:
    flat = _blank_boilerplate(text, boilerplate).replace("\n", " ")
    clause_marks = {offset: label for offset, label in find_clauses(text)}
    for m in _GUIDANCE_LINE.finditer(text):  # "7.1.3.Guidance on high-risk customers .2."
        clause_marks.setdefault(m.start(1), " ".join(m[1].split()))
    item_marks: dict[int, re.Match[str]] = {m.start(): m for m in _ITEM.finditer(text)}
    item_marks.update(_inline_items(text, clause_marks, item_marks, state.letter))
    cuts = sorted(set(clause_marks) | set(item_marks) | {len(text)})
    paragraphs = _lines_are_paragraphs(text)
    units: list[Unit] = []
    start = 0
    for cut in cuts:
        if cut > start:
            tail = _list_tail(text, start, cut) if paragraphs and state.item else None
            units.extend(state.block(document_id, page, flat, start, tail or cut))
            if tail is not None:  # "…, for at least six years from …" closes the list
                state.end_of_list()
                units.extend(state.block(document_id, page, flat, tail, cut))
        if cut in clause_marks:
            state.clause_marker(_LRM.sub("", clause_marks[cut]))
        elif cut in item_marks:
            state.item_marker(item_marks[cut]["item"] or "")
        start = cut
    return units


def _inline_items(text: str, clause_marks: dict[int, str], item_marks: dict[int, re.Match[str]],
                  open_letter: str) -> dict[int, re.Match[str]]:
    """The item labels inside lines that continue the list being read: "(b)" after "(a)",
    "(ii)" after "(i)", or "(a)" or "(i)" right after a lead-in's ":"."""
    found: dict[int, re.Match[str]] = {}
    inline = {m.start("mark"): m for m in _INLINE_ITEM.finditer(text)}
    last = open_letter
    for at in sorted(set(clause_marks) | set(item_marks) | set(inline)):
        if at in clause_marks:
            last = ""
        elif at in item_marks:
            last = item_marks[at]["item"] or last
        elif _follows(inline[at]["item"], last, inline[at]["after"]):
            found[at] = inline[at]
            last = inline[at]["item"]
    return found


def _follows(item: str, last: str, after: str) -> bool:
    if after == ":" and item in ("a", "i"):
        return True
    if last in _ROMAN and item in _ROMAN and _ROMANS.index(item) == _ROMANS.index(last) + 1:
        return True
    return len(last) == 1 and item == chr(ord(last) + 1)


def _lines_are_paragraphs(text: str) -> bool:
    """Plain-text rulebooks put a paragraph on each line; PDF text wraps lines at the page
    width. Only in the first kind can a line be a list's closing words."""
    return any(len(line) > 200 for line in text.splitlines())


_TAIL = re.compile(r"(?:[,;:]|\band|\bor)[ \t]*\n(?=[ \t]*[a-z])")


def _list_tail(text: str, start: int, end: int) -> int | None:
    """Where the words that close a list begin, when they follow its last item on a line of
    their own ("(g) any other matter …,\nfor at least six years from …")."""
    m = _TAIL.search(text, start, end)
    return m.end() if m and text[m.end():end].strip() else None


def _blank_boilerplate(text: str, boilerplate: set[str]) -> str:
    if not boilerplate:
        return text
    out = []
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\n")
        out.append(" " * len(body) + line[len(body):] if _line_key(body) in boilerplate
                   else line)
    return "".join(out)


class _State:
    """Where the walk through a page is: the clause, its lead-in, the open list item."""

    def __init__(self, max_unit_chars: int) -> None:
        self.max_unit_chars = max_unit_chars
        self.clause: str | None = None
        self.item = ""  # "(e)" or "(a)(ii)"
        self.letter = ""  # the open first-level item letter
        self.stem = ""
        self.item_stem = ""
        self.chapter = ""
        self.section = ""
        self.at_clause = False  # the next block is the clause's own text (not an item)
        # The clause's own text is being read (no item yet): a block of it after a page
        # break that ends in ":" is still the clause's lead-in.
        self.in_clause_text = False
        self.in_guidance = False  # under a guidance label the clause marker did not name

    def clause_marker(self, label: str) -> None:
        if re.fullmatch(r"\d{1,2}", label) is None and label.startswith("(") and self.clause:
            label = re.sub(r"\.?\(\w+\)$", "", self.clause) + "." + label
        self.clause, self.item, self.letter = label, "", ""
        self.stem = self.item_stem = ""
        self.at_clause = self.in_clause_text = True
        self.in_guidance = False

    def end_of_list(self) -> None:
        """The list is over; what follows completes the lead-in, as part of the clause."""
        self.item, self.letter, self.item_stem = "", "", ""

    def item_marker(self, item: str) -> None:
        self.at_clause = self.in_clause_text = False
        if not item:  # a bullet
            self.item = ""
            return
        if item.isdigit():  # "(6)": a numbered paragraph of the current rule
            self.clause_marker(f"({item})")
            return
        previous = chr(ord(self.letter) + 1) if len(self.letter) == 1 else ""
        if self.letter and (item in _ROMAN or item.isupper()) and item != previous:
            self.item = f"({self.letter})({item})"
        else:
            self.letter, self.item, self.item_stem = item, f"({item})", ""

    def block(self, document_id: UUID, page: int, flat: str, start: int,
              end: int) -> list[Unit]:
        text = normalise(flat[start:end])
        if not text:
            return []
        if _GUIDANCE.match(text):  # "7.2.4.Guidance on Restricted Scope Companies.3." …
            self.in_guidance = True
        label = self.clause
        body = _strip_marker(text, label if self.at_clause else None)
        if self.at_clause and _is_heading(body, label):
            if (label or "").count(".") == 0:
                self.chapter = body
            self.section = body
            return []
        clause = f"{label or ''}{self.item}" or None
        stem = " ".join(p for p in (self.stem, self.item_stem) if p)
        units = []
        for a, b in _unit_spans(flat, start, end, self.max_unit_chars):
            unit_text = normalise(flat[a:b])
            first = normalise(flat[start:b]) == unit_text
            units.append(Unit(document_id, page, a, b, unit_text,
                              _strip_marker(unit_text, label if self.at_clause else None)
                              if first else unit_text,
                              clause, stem, self.chapter, self.section,
                              self.in_guidance or "Guidance" in (label or "")))
        if text.endswith(":"):  # a lead-in: the items that follow complete it
            if self.in_clause_text:  # the clause's own text (at_clause implies it)
                self.stem = body
            elif self.item.count("(") == 1:
                self.item_stem = body
        self.at_clause = False
        return units


def _strip_marker(text: str, clause_label: str | None) -> str:
    """The text without its leading marker: the clause label when the block starts a
    clause, else an item letter or bullet."""
    if clause_label is not None:
        t = text.lstrip("# ")
        if t.startswith(clause_label):
            return t[len(clause_label):].lstrip(" .:–—-\t")
    m = _ITEM.match(text)
    return text[m.end():] if m else text


def _is_heading(body: str, label: str | None) -> bool:
    """A short marked line that does not read as the start of a sentence cut by a page end:
    "4.5 Record keeping", "9. Simplified Due Diligence"."""
    words = body.split()
    return (label is not None and 0 < len(body) <= MAX_HEADING_CHARS and len(words) <= 12
            and not body.endswith((".", ";", ":", ",")) and label.count(".") <= 1
            and "Guidance" not in label and words[-1].lower() not in _FUNCTION_WORDS)


_FUNCTION_WORDS = {"a", "an", "the", "of", "and", "or", "to", "in", "for", "with", "by", "on",
                   "that", "which", "is", "are", "be", "as", "at", "from", "its", "their"}


def _unit_spans(flat: str, start: int, end: int,
                max_chars: int) -> list[tuple[int, int]]:
    """The whole block when it is short, else its sentences (very short ones joined to
    the next)."""
    piece = flat[start:end]
    lead = len(piece) - len(piece.lstrip())
    trail = len(piece.rstrip())
    if trail - lead <= max_chars:
        return [(start + lead, start + trail)]
    spans: list[tuple[int, int]] = []
    pending: int | None = None
    for a, b in sentence_spans(piece):
        a0 = a if pending is None else pending
        if b - a0 < 40:
            pending = a0
            continue
        spans.append((start + a0, start + b))
        pending = None
    if pending is not None:
        if spans:
            spans[-1] = (spans[-1][0], start + trail)
        else:
            spans.append((start + pending, start + trail))
    return spans


def citable(unit: Unit, chunks: Sequence[StoredChunk], page_text: str,
            document: Document, *, focus: str = "") -> tuple[ChunkHit, str] | None:
    """The chunk that holds most of ``unit`` (as a hit that a CitationBook can cite, score
    1.0) and a verbatim quote of at most MAX_QUOTE_CHARS from it, starting at the sentence
    that holds ``focus`` when given."""
    best: tuple[int, StoredChunk] | None = None
    for chunk in chunks:
        if chunk.page_start != unit.page:
            continue
        overlap = min(unit.end, chunk.char_end) - max(unit.start, chunk.char_start)
        if overlap > 0 and (best is None or overlap > best[0]):
            best = (overlap, chunk)
    if best is None:
        return None
    chunk = best[1]
    a, b = max(unit.start, chunk.char_start), min(unit.end, chunk.char_end)
    flat = page_text[a:b].replace("\n", " ")
    at = normalise(flat).find(focus) if focus else -1
    quote = normalise(quote_around(flat, _raw_offset(flat, at), max_chars=MAX_QUOTE_CHARS)
                      if at > 0 else _head(flat))
    hit = ChunkHit.of(chunk, document, 1.0)
    return hit, quote


def _head(flat: str) -> str:
    text = normalise(flat)
    if len(text) <= MAX_QUOTE_CHARS:
        return text
    cut = text.rfind(" ", 0, MAX_QUOTE_CHARS)
    return text[:cut if cut > 0 else MAX_QUOTE_CHARS]


def _raw_offset(flat: str, normalised_at: int) -> int:
    """The offset in ``flat`` of character ``normalised_at`` of ``normalise(flat)``."""
    count = 0
    previous_space = True
    lead = len(flat) - len(flat.lstrip())
    for i, ch in enumerate(flat[lead:], start=lead):
        is_space = ch.isspace()
        if is_space and previous_space:
            continue
        if count >= normalised_at:
            return i
        count += 1
        previous_space = is_space
    return len(flat)
