"""DOCX via python-docx: body paragraphs and tables in document order, as one page."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from regintel.adapters.parsers._common import missing_extra, normalise_newlines
from regintel.domain.documents import ParsedDocument, ParsedPage
from regintel.errors import DocumentRejected

if TYPE_CHECKING:
    from docx.document import Document
    from docx.table import Table

MIME_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


def parse_docx(data: bytes) -> ParsedDocument:
    try:
        import docx
    except ImportError as exc:
        raise missing_extra("DOCX", exc) from exc
    try:
        document = docx.Document(io.BytesIO(data))
        blocks = _blocks(document)
        title = document.core_properties.title or ""
    except Exception as exc:
        # python-docx fails with KeyError, ValueError, lxml and zip errors alike; to the user
        # they all mean the same thing.
        raise DocumentRejected(
            "the file could not be read as a Word (DOCX) document",
            hint="open it in Word, save it again as .docx and upload it again",
        ) from exc
    # Blank lines between blocks keep paragraph breaks visible to the chunker.
    text = normalise_newlines("\n\n".join(blocks))
    return ParsedDocument(mime_type=MIME_TYPE, pages=(ParsedPage(number=1, text=text),),
                          title=title.strip() or None)


def _blocks(document: Document) -> list[str]:
    from docx.text.paragraph import Paragraph

    blocks: list[str] = []
    for item in document.iter_inner_content():
        if isinstance(item, Paragraph):
            if item.text.strip():  # empty paragraphs are Word's vertical spacing
                blocks.append(item.text)
        elif rows := _table_rows(item):
            blocks.append("\n".join(rows))
    return blocks


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
