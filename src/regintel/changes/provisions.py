"""A version of a regulation as provisions: its divisions ("PART 478—…", "Subpart A—…"), its
sections ("§ 478.11 Meaning of terms.", "Article 5 …", "Rule 8.1.1 …") and their paragraphs
with the label path the document writes ("478.124(c)(1)").

The text is what a user uploads: one paragraph a line, its marker first. Paragraphs without a
marker (definitions, a flush sentence after a list, a table) get a key from their first words
so the same paragraph has the same key in two versions even when paragraphs are added before
it. Every text kept is verbatim; comparisons use ``comparable`` (Unicode compatibility forms:
a thin space is a space), so a rendering difference is no change but a doubled space is."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from typing import Literal

from regintel.changes.labels import MARKER, Level, Placement, choose, fits

UnitKind = Literal["preamble", "division", "section"]

_DIVISION = re.compile(
    r"^(?P<kw>(?:SUB)?PART|(?:Sub)?[Pp]art|(?:SUB)?CHAPTER|(?:Sub)?[Cc]hapter|TITLE|Title|"
    r"DIVISION|Division|SCHEDULE|Schedule|ANNEX|Annex|APPENDIX|Appendix)\s+"
    r"(?P<num>[A-Za-z0-9][\w.]*?)\s*(?:[—–:-]\s*|\.\s+|$)(?P<heading>.*)$")
_SECTION = re.compile(
    r"^(?P<kw>§|Section|SECTION|Sec\.|Article|ARTICLE|Art\.|Rule|RULE|Regulation)\s*"
    r"(?P<num>\d+[\w.-]*?)\.?(?:\s+(?P<heading>[A-Z\[“\"'].*))?$")
MAX_HEADING = 250
KEY_WORDS = 6
TERM_WORDS = 10


def comparable(text: str) -> str:
    """The text as compared: compatibility forms folded (thin or no-break space → space,
    ligatures split), line ends trimmed; inner spacing kept, since changing it is an edit."""
    return "\n".join(line.rstrip() for line in unicodedata.normalize("NFKC", text).strip()
                     .splitlines())


def first_words(text: str) -> str:
    """A paragraph's key words: its opening term when short ("Person", "Large exposure to a
    connected party"), else its first KEY_WORDS words."""
    text = comparable(text)
    if text.startswith("|"):  # a table: its header row
        text = text.splitlines()[0]
    flat = " ".join(text.replace("|", " ").split())
    term = re.split(r"(?<=\w)[.:—](?:\s|$)", flat, maxsplit=1)[0]
    words = term.split() if len(term.split()) <= TERM_WORDS else flat.split()[:KEY_WORDS]
    return " ".join(words).rstrip(".,;:—-") or "…"


@dataclass(frozen=True)
class Paragraph:
    """One paragraph. ``segments`` is its path below its section: markers ("(c)", "(1)") and,
    for a paragraph without one, "¶ first words"."""

    segments: tuple[str, ...]
    label: str  # as cited: "478.124(c)(1)", "478.11 ¶ Person"
    marker: str | None  # "(1)"; None for an unlabelled paragraph
    body: str  # verbatim, after the marker
    text: str  # verbatim, the whole paragraph
    index: int  # order in its unit

    @property
    def key(self) -> str:
        return render(self.segments)

    @property
    def parent(self) -> tuple[str, ...]:
        return self.segments[:-1]


@dataclass(frozen=True)
class Unit:
    """A heading and the paragraphs under it: a section, or a division's own text."""

    kind: UnitKind
    label: str  # "§ 478.11", "Subpart A", "PART 478"
    number: str  # "478.11", "A"
    heading: str  # verbatim, after the number: "Meaning of terms."
    line: str  # the verbatim heading line
    cite: str  # what paragraph labels start with: "478.11", "Article 5"
    divisions: tuple[str, ...]  # enclosing divisions, outermost first
    paragraphs: tuple[Paragraph, ...]
    index: int

    @property
    def text(self) -> str:
        return "\n".join([self.line, *(p.text for p in self.paragraphs)])


@dataclass(frozen=True)
class Version:
    units: tuple[Unit, ...]

    @property
    def sections(self) -> tuple[Unit, ...]:
        return tuple(u for u in self.units if u.kind == "section")


def render(segments: tuple[str, ...]) -> str:
    """"(c)(1)", "¶ Alien", "¶ Adjudicated as a mental defective (a)(1)"."""
    out = ""
    after_words = False
    for segment in segments:
        words = segment.startswith("¶")
        out += (" " if out and (words or after_words) else "") + segment
        after_words = words
    return out


def label_of(cite: str, segments: tuple[str, ...]) -> str:
    path = render(segments)
    if not path:
        return cite
    return f"{cite} {path}" if path.startswith("¶") else f"{cite}{path}"


@dataclass
class _Line:
    text: str
    token: str | None  # the marker's inner token: "c", "iv", "12"
    marker: str | None
    body: str
    last: str | None = None  # a range's last token: "d" of "(c)-(d)"


def _lines(raw: list[str]) -> list[_Line]:
    """Paragraph lines; consecutive table rows ("|…|") are one paragraph."""
    found: list[_Line] = []
    for line in raw:
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("|") and found and found[-1].text.lstrip().startswith("|"):
            found[-1].text += "\n" + line.rstrip()
            found[-1].body = found[-1].text.strip()
            continue
        m = MARKER.match(stripped)
        if m is None:
            found.append(_Line(line.rstrip(), None, None, stripped))
            continue
        token = m["b"] or m["p"] or m["d"]
        # In a label path every form reads "(x)"; a range ("(d)-(e)") keeps its own words.
        marker = m["marker"] if m["b2"] else f"({token})"
        found.append(_Line(line.rstrip(), token, marker, stripped[m.end():], m["b2"]))
    return found


def _nest(lines: list[_Line]) -> list[tuple[str, ...]]:
    """Each line's segments. Markers nest by sequence (labels.choose). A run of unlabelled
    paragraphs goes where the next marker says: inside the paragraph that marker continues
    (inside the last paragraph when that one ends "as follows:"); before a list that marker
    opens; or, when the marker starts its kind over ("(a)" again) or follows a run of such
    paragraphs, the last of the run heads the list that follows (a defined term and its
    "(a)", "(b)")."""
    paths: list[tuple[str, ...]] = []
    stack: list[Level] = []
    outer: list[Level] = []  # the stack outside the current anchor (a quoted text's own list)
    anchor: tuple[str, ...] = ()
    root_unlabelled = 0
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.token is not None:
            following = next((ln.token for ln in lines[i + 1:i + 4] if ln.token), None)
            if anchor and fits(stack, line.token) is None:
                back = fits(outer, line.token)
                if back is not None and back.score == 3:  # the list the run interrupted goes on
                    anchor, stack = (), outer
            placed: Placement = choose(stack, line.token, line.marker or "", following,
                                       line.last)
            stack = [*stack[:placed.depth], placed.level]
            paths.append(anchor + tuple(level.marker for level in stack))
            i += 1
            continue
        j = i
        while j < len(lines) and lines[j].token is None:
            j += 1
        run = [("¶ " + first_words(ln.body),) for ln in lines[i:j]]
        nxt = lines[j].token if j < len(lines) else None
        fit = fits(stack, nxt) if nxt else None
        if nxt is None:
            paths.extend(run)
            anchor, stack = (), []
        elif fit is not None and fit.score == 3:  # inside the paragraph it continues …
            # … or inside the last one when that one leads into it ("as follows:" a table).
            leads_in = lines[i - 1].token is not None and \
                lines[i - 1].body.rstrip().endswith((":", "—"))
            inside = anchor + tuple(level.marker for level in
                                    (stack if leads_in else stack[:fit.depth + 1]))
            paths.extend(inside + seg for seg in run)
        elif fit is not None and stack:  # before the list it opens, below the last
            inside = anchor + tuple(level.marker for level in stack)
            paths.extend(inside + seg for seg in run)
        elif fit is not None and not anchor and root_unlabelled + len(run) < 2:
            paths.extend(run)  # a section's opening words, then its (a), (b)
        else:  # the last of the run heads the list that follows
            paths.extend(run[:-1])
            if not anchor:
                outer = stack
            anchor, stack = run[-1], []
            paths.append(anchor)
        root_unlabelled += sum(1 for p in paths[i:j] if len(p) == 1)
        i = j
    return paths


def _unit(kind: UnitKind, header: tuple[str, str, str, str, str], divisions: tuple[str, ...],
          raw: list[str], index: int) -> Unit:
    label, number, heading, line, cite = header
    lines = _lines(raw)
    paths = _nest(lines)
    seen: Counter[tuple[str, ...]] = Counter()
    paragraphs = []
    for n, (ln, path) in enumerate(zip(lines, paths, strict=True)):
        seen[path] += 1
        if seen[path] > 1:  # the same key twice in a unit ("Example 1." in two places)
            path = (*path[:-1], f"{path[-1]} #{seen[path]}")
        paragraphs.append(Paragraph(path, label_of(cite, path), ln.marker, ln.body,
                                    ln.text.strip(), n))
    return Unit(kind, label, number, heading, line, cite, divisions, tuple(paragraphs), index)


def read_version(text: str) -> Version:
    """The version's units in document order: a preamble (text before the first heading, if
    any), then each division heading and each section with its paragraphs."""
    units: list[Unit] = []
    levels: list[str] = []  # division keywords by the order they first appear: outermost first
    open_divisions: dict[int, str] = {}
    header: tuple[str, str, str, str, str] = ("(preamble)", "", "", "", "")
    kind: UnitKind = "preamble"
    divisions: tuple[str, ...] = ()
    body: list[str] = []

    def flush() -> None:
        if kind != "preamble" or any(line.strip() for line in body):
            units.append(_unit(kind, header, divisions, body, len(units)))

    for line in text.splitlines():
        stripped = comparable(line)
        division = _DIVISION.match(stripped) if len(stripped) <= MAX_HEADING else None
        section = _SECTION.match(stripped) if len(stripped) <= MAX_HEADING else None
        if division is None and section is None:
            body.append(line)
            continue
        flush()
        body = []
        if division is not None:
            keyword = division["kw"].lower()
            if keyword not in levels:
                levels.append(keyword)
            depth = levels.index(keyword)
            label = f"{division['kw']} {division['num']}"
            open_divisions = {d: v for d, v in open_divisions.items() if d < depth}
            divisions = tuple(open_divisions[d] for d in sorted(open_divisions))
            open_divisions[depth] = label
            kind = "division"
            header = (label, division["num"], division["heading"].strip(), line.strip(), label)
        elif section is not None:
            kw, number = section["kw"], section["num"]
            label = f"{kw} {number}"
            cite = number if kw == "§" else label
            divisions = tuple(open_divisions[d] for d in sorted(open_divisions))
            kind = "section"
            header = (label, number, (section["heading"] or "").strip(), line.strip(), cite)
    flush()
    return Version(tuple(units))
