"""Markdown is kept as written: `#` headings stay on their own lines for clause detection, and
are recorded with their level for section paths."""

from __future__ import annotations

import re

from regintel.adapters.parsers._common import normalise_newlines
from regintel.adapters.parsers.text import decode_utf8
from regintel.domain.documents import ParsedDocument, ParsedHeading, ParsedPage

MIME_TYPE = "text/markdown"
_ATX = re.compile(r"(?P<marks>#{1,6})[ \t]+(?P<title>.*?)(?:[ \t]+#+)?[ \t]*")
_FENCE = ("```", "~~~")


def markdown_headings(text: str) -> list[ParsedHeading]:
    """The ATX headings (``#`` to ``######``) outside fenced code (a ``# comment`` in a shell
    snippet is no heading), each at the start of its line."""
    headings: list[ParsedHeading] = []
    in_fence = False
    offset = 0
    for line in text.split("\n"):
        stripped = line.lstrip(" ")
        if stripped.startswith(_FENCE):
            in_fence = not in_fence
        elif (not in_fence and len(line) - len(stripped) < 4
              and (m := _ATX.fullmatch(stripped)) and m["title"].strip()):
            headings.append(ParsedHeading(offset=offset, level=len(m["marks"]),
                                          title=" ".join(m["title"].split())))
        offset += len(line) + 1
    return headings


def markdown_title(text: str) -> str | None:
    """The first level-1 heading."""
    return next((h.title for h in markdown_headings(text) if h.level == 1), None)


def parse_markdown(data: bytes) -> ParsedDocument:
    text = normalise_newlines(decode_utf8(data))
    page = ParsedPage(number=1, text=text, headings=tuple(markdown_headings(text)))
    return ParsedDocument(mime_type=MIME_TYPE, pages=(page,), title=markdown_title(text))
