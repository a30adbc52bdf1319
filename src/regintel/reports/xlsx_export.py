"""The report as an Excel workbook (openpyxl): a Summary sheet (with the sign-off block), a
Findings sheet (most severe first), a Matrix sheet in review order and, when the audit left
some parties' obligations out, a "Not applicable" sheet; each table with a frozen,
filterable header and wrapped text."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from regintel.errors import ConfigurationError
from regintel.reports.audit_report import AuditReport
from regintel.reports.tables import (
    EXCLUDED_COLUMNS,
    FINDING_COLUMNS,
    MATRIX_COLUMNS,
    Cell,
    excluded_cells,
    finding_cells,
    matrix_cells,
    sign_off,
    summary_pairs,
)

if TYPE_CHECKING:
    from openpyxl import Workbook
    from openpyxl.worksheet.worksheet import Worksheet

# Wide columns for verbatim text, narrow ones for labels (characters).
_WIDE, _MID, _NARROW = 48, 20, 11
FINDING_WIDTHS = (5, _NARROW, 9, _MID, _NARROW, _WIDE, _MID, _WIDE, _MID, 36, 36, 11)
MATRIX_WIDTHS = (_NARROW, _NARROW, 14, 7, 14, 14, 16, _MID, _WIDE, 30, _NARROW, _WIDE, 30, 30,
                 30, 14, 10)
EXCLUDED_WIDTHS = (30, 12, _WIDE, _MID, 30)
BODY_PT = 9
# Neither Excel nor LibreOffice sizes a wrapped row from a file that does not say its height,
# so each row gets the height of its tallest cell: lines of about 1.15 characters a width
# unit at 9 pt, 12 points a line, within Excel's 409-point limit.
CHARS_PER_UNIT, POINTS_PER_LINE, MAX_ROW_POINTS = 1.15, 11.5, 409.0
SEVERITY_FILL = {"Critical": "F4B6B6", "High": "F9D5B0", "Medium": "FBEBA8", "Low": "D9E8D2"}
# The matrix's Status: a proven finding in red, a row to review in amber, a proposal in green.
STATUS_FILL = {"finding": "F4B6B6", "review": "FBEBA8", "likely met": "D9E8D2",
               "not applicable": "E4E4E4"}
SCORE_FORMAT = "0.00"
HEADER_FILL = "1F3A5F"
MAX_CELL = 32_767  # Excel's limit on the characters of one cell


def to_xlsx(report: AuditReport) -> bytes:
    book = summary_workbook(report.title, _summary(report), widths=(18, 110))
    write_table(book.create_sheet("Findings"), FINDING_COLUMNS, FINDING_WIDTHS,
           [finding_cells(f) for f in report.findings], fill_column=1, fills=SEVERITY_FILL)
    write_table(book.create_sheet("Matrix"), MATRIX_COLUMNS, MATRIX_WIDTHS,
           [matrix_cells(line) for line in report.matrix],
           fill_column=MATRIX_COLUMNS.index("Status"), fills=STATUS_FILL)
    if report.excluded:  # a sheet only when a party was left out: an empty one says nothing
        write_table(book.create_sheet("Not applicable"), EXCLUDED_COLUMNS, EXCLUDED_WIDTHS,
               [excluded_cells(e) for e in report.excluded])
    return saved(book)


def _summary(report: AuditReport) -> list[tuple[str | None, ...]]:
    """The Summary sheet's rows: the report's facts, its summary and scope, the sign-off."""
    progress, *to_sign = sign_off(report)
    scope = [(label, _fit("\n".join(parts))) for label, parts in (
        ("Checked", report.scope_checked), ("Not checked", report.scope_not_checked)) if parts]
    return [*summary_pairs(report), (), ("Summary", _fit(report.summary)), *scope, (),
            ("Sign-off", progress), *((None, line) for line in to_sign)]


def summary_workbook(title: str, rows: Sequence[Sequence[str | None]], *,
                     widths: tuple[int, int]) -> Workbook:
    """A workbook whose first sheet is the Summary (``_write_summary``); the caller adds its
    tables (``write_table``), then ``saved``."""
    try:
        from openpyxl import Workbook
    except ImportError as exc:
        raise ConfigurationError("XLSX export needs openpyxl",
                                 hint="pip install 'regintel[reports]'") from exc
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "Summary"
    _write_summary(sheet, title, rows, widths=widths)
    return book


def saved(book: Workbook) -> bytes:
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _write_summary(sheet: Worksheet, title: str, rows: Sequence[Sequence[str | None]], *,
                   widths: tuple[int, int]) -> None:
    """A Summary sheet: the title, then a row a labelled value (label in bold; ``()`` leaves
    a line blank, a ``None`` label continues the value above), wrapped, each row as tall as
    its text."""
    from openpyxl.styles import Alignment, Font

    sheet.column_dimensions["A"].width = widths[0]
    sheet.column_dimensions["B"].width = widths[1]
    sheet.append([title])
    sheet["A1"].font = Font(bold=True, size=14)
    sheet.append([])
    for row in rows:
        sheet.append(list(row))
        if row and row[0] is not None:
            sheet.cell(sheet.max_row, 1).font = Font(bold=True)
    for number, cells in enumerate(sheet.iter_rows(min_row=3), start=3):
        for cell in cells:
            cell.alignment = Alignment(wrap_text=True, vertical="top")
            # Titles, names and quotes are text: never a formula, never an error code.
            if isinstance(cell.value, str):
                cell.data_type = "s"
        texts = [str(c.value or "") for c in cells[:2]]
        sheet.row_dimensions[number].height = row_height(texts, widths[:len(texts)])
    print_wide(sheet)


def write_table(sheet: Worksheet, columns: Sequence[str], widths: Sequence[int],
           rows: Sequence[Sequence[Cell]], *, fill_column: int | None = None,
           fills: Mapping[str, str] | None = None) -> None:
    from openpyxl.styles import Alignment, Font, PatternFill
    from openpyxl.utils import get_column_letter

    sheet.append(list(columns))
    for cell in sheet[1]:
        cell.font = Font(bold=True, color="FFFFFF")
        cell.fill = PatternFill("solid", fgColor=HEADER_FILL)
        cell.alignment = Alignment(wrap_text=True, vertical="center")
    for index, width in enumerate(widths, start=1):
        sheet.column_dimensions[get_column_letter(index)].width = width
    body = Font(size=BODY_PT)
    for values in rows:
        sheet.append([_fit(v) if isinstance(v, str) else v for v in values])
        sheet.row_dimensions[sheet.max_row].height = row_height(values, widths)
        for cell in sheet[sheet.max_row]:
            cell.font = body
            cell.alignment = Alignment(wrap_text=True, vertical="top")
            if cell.data_type == "f":  # a quote that starts with "=" stays text, verbatim
                cell.data_type = "s"
            if isinstance(cell.value, float):
                cell.number_format = SCORE_FORMAT
        if fill_column is not None and fills:
            fill = fills.get(str(values[fill_column]))
            if fill:
                sheet.cell(sheet.max_row, fill_column + 1).fill = PatternFill(
                    "solid", fgColor=fill)
    sheet.freeze_panes = "A2"
    if rows:
        sheet.auto_filter.ref = f"A1:{get_column_letter(len(columns))}{len(rows) + 1}"
    sheet.print_title_rows = "1:1"
    print_wide(sheet)


def print_wide(sheet: Worksheet) -> None:
    """Landscape A3, all columns on one page's width: a matrix is read across."""
    sheet.page_setup.paperSize = sheet.PAPERSIZE_A3
    sheet.page_setup.orientation = "landscape"
    sheet.page_setup.fitToWidth = 1
    sheet.page_setup.fitToHeight = 0
    from openpyxl.worksheet.properties import PageSetupProperties

    sheet.sheet_properties.pageSetUpPr = PageSetupProperties(fitToPage=True)


def row_height(values: Sequence[Cell], widths: Sequence[int]) -> float:
    lines = 1
    for value, width in zip(values, widths, strict=True):
        per_line = max(1, int(width * CHARS_PER_UNIT))
        lines = max(lines, sum(-(-max(1, len(part)) // per_line)
                               for part in str(value).split("\n")))
    return min(MAX_ROW_POINTS, lines * POINTS_PER_LINE + 3)


def _fit(text: str) -> str:
    """A cell's text within Excel's limit."""
    return text[:MAX_CELL]
