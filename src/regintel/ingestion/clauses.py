"""Clause and section markers at the start of a line, e.g. ``5.13A.5.1``, ``Article 6``,
``PART 5.12.12``, ``2.1.3.Guidance.1``, ``7.1.3.Guidance on high-risk customers.2``,
``Appendix A.`` or a Markdown heading. Only the start of a line counts:
a reference in running text ("under Rule 8.2 a Person…") is not where a clause begins."""

from __future__ import annotations

import re
from bisect import bisect_right

MAX_LABEL = 80

# One more part of a number: `.13A`, `.Guidance` (ADGM guidance under a rule, also typed
# `. Guidance` and `.Guidance2`), `.Chapter 1` (FSMR's `Part 1.Chapter 1.1.(1)`), a one-word
# named part (`2.4.4.Individuals.(a)`, `8.Introduction.Guidance.1`; a title of several words
# run into the number, "2.6.Suspending Securities from…", is no part of it), or a bracketed
# sub-part `(1)` / `.(a)`.
_PART = (r"(?:\.(?:\d{1,3}[A-Z]{0,2}|[ ]?Guidance\d{0,3}|Chapter[ \t]+\d{1,3}[A-Z]?"
         r"|[A-Z][a-z]{2,30}(?![a-z ]))|\.?\(\w{1,4}\))")
_KEYWORD = (r"(?i:article|rule|regulation|section|chapter|part|schedule|annex|appendix)"
            rf"[ \t]+(?:\d{{1,4}}[A-Za-z]{{0,2}}|[IVXLCDM]{{1,7}}|[A-Z]){_PART}*")
# Numbers start with 1-3 digits, so "2019. The year…" is no clause; a bare number needs a tab
# after it ("1<TAB>INTRODUCTION"), which keeps "100 Main Street" out.
_NUMBERED = (r"\d{1,3}(?:\.[0-9A-Z]{1,4})*\.Guidance[ ][^\t\n.]{1,120}(?:\.\d{1,3}\.?)?"
             r"(?=[ ]*\t|[ ]*$)"
             # ADGM guidance with a title: "7.1.3.Guidance on high-risk customers.2."
             rf"|\d{{1,3}}{_PART}+\.?"  # 1.1  1.1.  5.13A.5.1  2.1.3.Guidance.1  1.(1)
             r"|\d{1,3}\."  # 2. Scope
             r"|\d{1,3}(?=[ ]*\t)"  # 1<TAB>INTRODUCTION
             r"|\d{1,3}\)"  # 1) INTRODUCTION
             r"|[A-Z]\.\d{1,3}(?:\.\d{1,3})*\.?"  # A.1. (lettered annex numbering)
             # An appendix's own numbering, letters run into the number ("A1.1",
             # "A2.1.1.Guidance.1."), and before a tab as a bare number is: "APP1<TAB>TITLE".
             rf"|[A-Z]{{1,3}}\d{{1,3}}(?:{_PART}+\.?|(?=[ ]*\t))")
# A marker is a heading, not prose: the line ends, or a tab (after any spaces), a dash or colon,
# or a capital or opening bracket or quote follows. "Rule 8.2 applies…" (lower case) stays prose.
_HEADING_END = r"""(?=[ \t]*$|[ ]*\t|[ ]*[-–—:](?:[ \t]|$)|[ ]+[A-Z\[(“"‘'])"""
_MARKER = re.compile(
    # "Appendix A. Title": a keyword marker may end with a full stop.
    rf"^[ ]{{0,3}}(?:(?P<kw>{_KEYWORD})\.?|(?P<num>{_NUMBERED})){_HEADING_END}"
    r"|^#{1,6}[ \t]+(?P<md>[^\n]*?)[ \t#]*$",
    re.MULTILINE,
)
# Tables in the ADGM rulebooks sit between /Table Start and /Table End lines.
_TABLE = re.compile(r"^[/\\]Table Start.*?^[/\\]Table End", re.MULTILINE | re.DOTALL)
# Guidance numbered after the rule it explains: "8.7.1.Guidance.1". Titled guidance
# ("8.3.6.Guidance on Politically Exposed Persons (PEPs) and corruption.6") is a topic's,
# placed after whichever rule precedes it (8.3.6 is on foundations), and "7.Guidance.4"
# explains a chapter, which is no one rule.
_GUIDES = re.compile(r"^(?P<rule>\d{1,3}(?:\.[0-9A-Z]{1,4})+)\.Guidance(?:\.\d|$)")


def find_clauses(text: str) -> list[tuple[int, str]]:
    """(offset, label) for each marker in order; offsets index ``text``, labels are short."""
    table_edges = [edge for m in _TABLE.finditer(text) for edge in m.span()]
    found: list[tuple[int, str]] = []
    for m in _MARKER.finditer(text):
        if m["md"] is not None:
            if label := _heading_label(m["md"]):
                found.append((m.start(), label))
        elif m["kw"] is not None:
            found.append((m.start("kw"), _label(m["kw"])))
        # A number starting a table row is a cell, not a clause (odd count = inside a table).
        elif bisect_right(table_edges, m.start("num")) % 2 == 0:
            found.append((m.start("num"), _label(m["num"])))
    return found


def _label(marker: str) -> str:
    # "21.3.4. Guidance.1." is labelled as its neighbours are written: 21.3.4.Guidance.1.
    label = " ".join(marker.split()).replace(". ", ".").rstrip(".")
    if label.endswith(")") and "(" not in label:  # "1)" → "1"
        label = label[:-1]
    return label


def _heading_label(heading: str) -> str:
    """A Markdown heading that starts with a marker ("## Article 6 Lawfulness") is labelled by
    the marker, as the same heading in a DOCX or PDF would be; otherwise by its text."""
    heading = heading.strip()
    inner = _MARKER.match(heading)
    if inner is not None and inner["md"] is None:
        return _label(inner["kw"] or inner["num"])
    return heading[:MAX_LABEL].rstrip()


def guided_rule(label: str | None) -> str | None:
    """The rule a guidance clause explains ("8.7.1" for "8.7.1.Guidance.1"), else None."""
    found = _GUIDES.match(label or "")
    return found["rule"] if found else None
