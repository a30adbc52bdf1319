"""HTML via selectolax (lexbor): visible text with block elements on their own lines, and the
``h1``-``h6`` headings with their levels for section paths."""

from __future__ import annotations

import codecs
import re
from typing import TYPE_CHECKING

from regintel.adapters.parsers._common import missing_extra, normalise_newlines
from regintel.adapters.parsers.text import decode_utf8
from regintel.domain.documents import ParsedDocument, ParsedHeading, ParsedPage
from regintel.errors import DocumentRejected

if TYPE_CHECKING:
    from selectolax.lexbor import LexborNode

MIME_TYPE = "text/html"
# Never visible, or page chrome rather than content.
_SKIP = frozenset({"head", "script", "style", "nav", "noscript", "template", "svg", "iframe",
                   "object", "canvas", "button", "select", "math"})
# Separated by a blank line (a paragraph break for the chunker).
_PARAGRAPH = frozenset({"p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "table",
                        "ul", "ol", "dl", "section", "article", "header", "footer", "aside",
                        "main", "figure", "form", "fieldset", "address", "details", "hr"})
_LINE = frozenset({"div", "li", "tr", "dt", "dd", "caption", "figcaption", "summary", "br",
                   "body", "html", "center", "legend"})
_BREAK = {tag: "\n\n" for tag in _PARAGRAPH} | {tag: "\n" for tag in _LINE}
_CELL = frozenset({"td", "th"})
_HEADINGS = {f"h{level}": level for level in range(1, 7)}
_HTML_SPACE = re.compile(r"[ \t\n\r\f]+")  # HTML collapses ASCII whitespace only
_AROUND_BREAK = re.compile(r"[ ]*([\n\t])[ ]*")
_BLANK_LINES = re.compile(r"\n{3,}")
_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_\-:.]+)""", re.IGNORECASE)


def parse_html(data: bytes) -> ParsedDocument:
    try:
        from selectolax.lexbor import LexborHTMLParser
    except ImportError as exc:
        raise missing_extra("HTML", exc) from exc
    tree = LexborHTMLParser(decode_html(data))
    title_node = tree.css_first("title")
    title = _HTML_SPACE.sub(" ", title_node.text()).strip() if title_node is not None else ""
    root = tree.root
    titled: list[tuple[int, str]] = []
    text = _visible_text(root, titled) if root is not None else ""
    page = ParsedPage(number=1, text=text, headings=tuple(_locate(text, titled)))
    return ParsedDocument(mime_type=MIME_TYPE, pages=(page,), title=title or None)


def _locate(text: str, titled: list[tuple[int, str]]) -> list[ParsedHeading]:
    """Each heading (level, its words) found in the visible text, in order; one whose words
    did not reach the text (all hidden) is left out."""
    headings: list[ParsedHeading] = []
    pos = 0
    for level, words in titled:
        found = re.compile(r"\s+".join(map(re.escape, words.split()))).search(text, pos)
        if found is None:
            continue
        headings.append(ParsedHeading(offset=found.start(), level=level,
                                      title=" ".join(words.split())))
        pos = found.end()
    return headings


def decode_html(data: bytes) -> str:
    """UTF-8, or the charset the page itself declares; we never guess."""
    try:
        return decode_utf8(data)
    except DocumentRejected:
        declared = _CHARSET.search(data[:4096])
        if declared is None:
            raise
        try:
            return data.decode(codecs.lookup(declared[1].decode("ascii")).name)
        except (LookupError, UnicodeDecodeError):
            raise DocumentRejected(
                f"the file is not valid {declared[1].decode('ascii')} text as it declares",
                hint="re-save the page as UTF-8 and upload it again",
            ) from None


class _Sink:
    """Collects text; breaks requested between blocks merge (the strongest wins), so nested
    or adjacent block elements never stack up blank lines."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.pending = ""  # "", "\t", "\n" or "\n\n"

    def brk(self, sep: str) -> None:
        rank = ("", "\t", "\n", "\n\n")
        if rank.index(sep) > rank.index(self.pending):
            self.pending = sep

    def add(self, text: str) -> None:
        if not text or (text.isspace() and (self.pending or not self.parts)):
            return  # source indentation between blocks is not content
        if self.pending and self.parts:
            self.parts.append(self.pending)
        self.pending = ""
        self.parts.append(text)


def _visible_text(root: LexborNode, headings: list[tuple[int, str]]) -> str:
    """The visible text; appends (level, text) of each visible heading to ``headings``."""
    sink = _Sink()
    # An explicit stack instead of recursion: deeply nested markup must not hit the
    # recursion limit. A (node, True) entry closes that element once its children are done.
    stack: list[tuple[LexborNode, bool]] = [(root, False)]
    pre_depth = 0
    while stack:
        node, closing = stack.pop()
        tag = node.tag or ""
        if closing:
            pre_depth -= tag == "pre"
            sink.brk("\t" if tag in _CELL else _BREAK.get(tag, ""))
            continue
        if tag == "-text":
            content = node.text_content or ""
            sink.add(content if pre_depth else _HTML_SPACE.sub(" ", content))
            continue
        if tag in _SKIP or (tag.startswith("-") and tag != "-document"):
            continue  # comments, doctype, hidden elements
        pre_depth += tag == "pre"
        if tag in _HEADINGS and (words := _HTML_SPACE.sub(" ", node.text()).strip()):
            headings.append((_HEADINGS[tag], words))
        sink.brk(_BREAK.get(tag, ""))
        stack.append((node, True))
        children: list[LexborNode] = []
        child = node.first_child
        while child is not None:
            children.append(child)
            child = child.next
        stack.extend((c, False) for c in reversed(children))
    text = normalise_newlines("".join(sink.parts))
    return _BLANK_LINES.sub("\n\n", _AROUND_BREAK.sub(r"\1", text)).strip()
