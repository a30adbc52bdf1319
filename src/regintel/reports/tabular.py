"""A report that is a title, a summary of labelled facts and tables (the impact of a new
regulation version, changes/impact_export.py), as an Excel workbook or a Word document with
the audit report's look: frozen, filterable headers and wrapped cells in Excel; landscape
tables with a repeating header in Word."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from regintel.errors import ConfigurationError
from regintel.reports.docx_export import (
    MARGIN_CM,
    SUMMARY_WIDTHS_CM,
    column_widths,
    repeat_header,
    small,
)
from regintel.reports.tables import Cell
from regintel.reports.xlsx_export import saved, summary_workbook, write_table

if TYPE_CHECKING:
    from docx.document import Document as DocxDocument


@dataclass(frozen=True)
class Table:
    name: str
    columns: tuple[str, ...]
    chars: tuple[int, ...]          # Excel column widths, in characters
    centimetres: tuple[float, ...]  # Word column widths (a landscape page holds about 24.5)
    rows: list[list[Cell]]
    empty: str = "None."            # what Word says instead of an empty table
    intro: str = ""


@dataclass(frozen=True)
class TabularReport:
    title: str
    summary: list[tuple[str, str]]
    tables: list[Table] = field(default_factory=list)


def to_xlsx(report: TabularReport) -> bytes:
    book = summary_workbook(report.title, report.summary, widths=(22, 100))
    for table in report.tables:
        write_table(book.create_sheet(table.name[:31]), table.columns, table.chars, table.rows)
    return saved(book)


def to_docx(report: TabularReport) -> bytes:
    try:
        from docx import Document
        from docx.enum.section import WD_ORIENT
        from docx.shared import Cm, Pt
    except ImportError as exc:
        raise ConfigurationError("DOCX export needs python-docx",
                                 hint="pip install 'regintel[reports]'") from exc
    document = Document()
    document.styles["Normal"].font.name = "Calibri"
    document.styles["Normal"].font.size = Pt(10)
    section = document.sections[0]
    section.orientation = WD_ORIENT.LANDSCAPE
    section.page_width, section.page_height = section.page_height, section.page_width
    section.left_margin = section.right_margin = Cm(MARGIN_CM)
    document.core_properties.title = report.title
    document.add_heading(report.title, level=0)
    summary = document.add_table(rows=0, cols=2)
    summary.style = "Table Grid"
    for label, value in report.summary:
        cells = summary.add_row().cells
        cells[0].text, cells[1].text = label, value
        cells[0].paragraphs[0].runs[0].bold = True
    column_widths(summary, SUMMARY_WIDTHS_CM)
    for table in report.tables:
        _table(document, table)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def _table(document: DocxDocument, table: Table) -> None:
    document.add_heading(f"{table.name} ({len(table.rows)})", level=1)
    if table.intro:
        document.add_paragraph(table.intro)
    if not table.rows:
        document.add_paragraph(table.empty)
        return
    grid = document.add_table(rows=1, cols=len(table.columns))
    grid.style = "Table Grid"
    for cell, header in zip(grid.rows[0].cells, table.columns, strict=True):
        cell.text = header
        cell.paragraphs[0].runs[0].bold = True
    repeat_header(grid)
    for values in table.rows:
        for cell, value in zip(grid.add_row().cells, values, strict=True):
            cell.text = f"{value:.2f}" if isinstance(value, float) else str(value)
    column_widths(grid, table.centimetres)
    small(grid)
