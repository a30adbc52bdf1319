"""Markdown is kept as written: `#` headings stay on their own lines for clause detection."""

from __future__ import annotations

import re

from regintel.adapters.parsers._common import normalise_newlines
from regintel.adapters.parsers.text import decode_utf8
from regintel.domain.documents import ParsedDocument, ParsedPage

MIME_TYPE = "text/markdown"
_H1 = re.compile(r"#[ \t]+(?P<title>.*?)(?:[ \t]+#+)?[ \t]*")
_FENCE = ("```", "~~~")


def markdown_title(text: str) -> str | None:
    """The first level-1 ATX heading outside fenced code (a `# comment` in a shell snippet is
    not a title)."""
    in_fence = False
    for line in text.split("\n"):
        stripped = line.lstrip(" ")
        if stripped.startswith(_FENCE):
            in_fence = not in_fence
        elif (not in_fence and len(line) - len(stripped) < 4
              and (m := _H1.fullmatch(stripped)) and m["title"].strip()):
            return m["title"].strip()
    return None


def parse_markdown(data: bytes) -> ParsedDocument:
    text = normalise_newlines(decode_utf8(data))
    return ParsedDocument(mime_type=MIME_TYPE, pages=(ParsedPage(number=1, text=text),),
                          title=markdown_title(text))
