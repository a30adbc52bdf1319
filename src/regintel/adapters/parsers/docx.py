"""DOCX via python-docx: body paragraphs and tables in document order, as one page, with the
paragraphs styled as headings recorded for section paths."""

from __future__ import annotations

import io
import re
from typing import TYPE_CHECKING

from regintel.adapters.parsers._common import missing_extra, normalise_newlines
from regintel.domain.documents import ParsedDocument, ParsedHeading, ParsedPage
from regintel.errors import DocumentRejected

if TYPE_CHECKING:
    from docx.document import Document
    from docx.table import Table
    from docx.text.paragraph import Paragraph

MIME_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


def parse_docx(data: bytes) -> ParsedDocument:
    try:
        import docx
    except ImportError as exc:
        raise missing_extra("DOCX", exc) from exc
    try:
        document = docx.Document(io.BytesIO(data))
        blocks, levels = _blocks(document)
        title = document.core_properties.title or ""
    except Exception as exc:
        # python-docx fails with KeyError, ValueError, lxml and zip errors alike; to the user
        # they all mean the same thing.
        raise DocumentRejected(
            "the file could not be read as a Word (DOCX) document",
            hint="open it in Word, save it again as .docx and upload it again",
        ) from exc
    # Blank lines between blocks keep paragraph breaks visible to the chunker.
    blocks = [normalise_newlines(block) for block in blocks]
    headings: list[ParsedHeading] = []
    offset = 0
    for block, level in zip(blocks, levels, strict=True):
        if level is not None:
            headings.append(ParsedHeading(offset=offset + len(block) - len(block.lstrip()),
                                          level=level, title=" ".join(block.split())))
        offset += len(block) + 2
    page = ParsedPage(number=1, text="\n\n".join(blocks), headings=tuple(headings))
    return ParsedDocument(mime_type=MIME_TYPE, pages=(page,), title=title.strip() or None)


def _blocks(document: Document) -> tuple[list[str], list[int | None]]:
    """The text blocks in order, and for each its heading level (None: not a heading)."""
    from docx.text.paragraph import Paragraph

    blocks: list[str] = []
    levels: list[int | None] = []
    for item in document.iter_inner_content():
        if isinstance(item, Paragraph):
            if item.text.strip():  # empty paragraphs are Word's vertical spacing
                blocks.append(item.text)
                levels.append(_heading_level(item))
        elif rows := _table_rows(item):
            blocks.append("\n".join(rows))
            levels.append(None)
    return blocks, levels


_HEADING_STYLE = re.compile(r"heading\s*([1-9])", re.IGNORECASE)
_OUTLINE = "./w:pPr/w:outlineLvl/@w:val"


def _heading_level(paragraph: Paragraph) -> int | None:
    """1-9 for a heading: the outline level set on the paragraph or its style (what Word's
    navigation pane shows, in any language), else a "Heading N" style name."""
    found: list[str] = paragraph._p.xpath(_OUTLINE)
    style = paragraph.style
    names: list[str] = []
    while not found and style is not None:
        found = style.element.xpath(_OUTLINE)
        names.append(style.name or "")
        style = style.base_style
    if found:
        level = int(found[0]) + 1
        return level if 1 <= level <= 9 else None  # 9 ("10") is body text
    for name in names:
        if m := _HEADING_STYLE.fullmatch(name.strip()):
            return int(m[1])
    return None


def _table_rows(table: Table) -> list[str]:
    """One line per row, cells separated by tabs; a merged cell appears once per row."""
    rows: list[str] = []
    for row in table.rows:
        cells: list[str] = []
        previous = None
        for cell in row.cells:
            if cell._tc is previous:  # python-docx repeats horizontally merged cells
                continue
            previous = cell._tc
            # A cell holds paragraphs; keep the row on one line so the tabs still align.
            cells.append(" ".join(cell.text.split("\n")))
        if any(c.strip() for c in cells):
            rows.append("\t".join(cells))
    return rows
