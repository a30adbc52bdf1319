"""Sentence boundaries in regulatory text, shared by chunking (where chunks may end) and the
chat engine (which sentences a quote or an answer is made of)."""

from __future__ import annotations

import re

# A full stop ends a sentence unless it closes a number ("5.13A.5.1.", "Rule 5.1. The"), a
# single letter ("e.g.", "i.e.", "U.K.") or a common abbreviation ("Art. 6", "No. 3").
_ABBREVIATIONS = ("Art", "Arts", "No", "Nos", "no", "Para", "para", "paras", "Reg", "Regs",
                  "Sch", "Sec", "Sect", "Ch", "ch", "Vol", "vol", "Fig", "fig", "pp", "cf",
                  "Cf", "viz", "vs", "al", "Mr", "Mrs", "Ms", "Dr", "Prof", "St", "Inc", "Ltd",
                  "Co", "Corp", "approx", "incl", "Ref", "ref", "Rev", "Sub", "sub")
# The lookbehinds come after the punctuation so the engine tries them only at a full stop.
_NOT_AFTER = "".join(rf"(?<!\b{re.escape(a)}\.)" for a in _ABBREVIATIONS)
SENTENCE_END = re.compile(rf"(?:[;?!]|\.(?<![0-9]\.)(?<!\b[A-Za-z]\.){_NOT_AFTER})"
                           r"""[”’"')\]]*(?=\s)""")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence, trimmed of surrounding whitespace. A line break also
    ends one when it closes a paragraph, a heading or list item, or a line ending in
    punctuation — not when it only wraps a long line (PDF text)."""
    spans: list[tuple[int, int]] = []
    cuts = sorted({m.end() for m in SENTENCE_END.finditer(text)} |
                  {m.start() for m in _LINE_BREAK.finditer(text) if _ends_line(text, m.start())}
                  | {len(text)})
    start = 0
    for cut in cuts:
        piece = text[start:cut]
        stripped = piece.strip()
        if stripped:
            offset = start + piece.index(stripped[0])
            spans.append((offset, offset + len(stripped)))
        start = cut
    return spans


_LINE_BREAK = re.compile(r"\n")
_NEXT_ITEM = re.compile(r"\s*(?:$|\(?[a-z0-9ivx]{1,4}[.)]\s|[-•*]\s|\d+(?:\.\d+)+|\\Table)")
WRAPPED_LINE = 60  # a line at least this long that ends without punctuation was wrapped


def _ends_line(text: str, at: int) -> bool:
    line_start = text.rfind("\n", 0, at) + 1
    line = text[line_start:at].rstrip()
    if not line or line[-1] in ".;:!?)\"”" or len(line) < WRAPPED_LINE:
        return True
    return bool(_NEXT_ITEM.match(text, at + 1))
