"""The matrix as CSV: one row per matrix line (the findings are its non-covered rows, with
their number, severity and fix), UTF-8 with a byte-order mark so spreadsheet programs read
the quotes' accents and dashes correctly. A cell that a spreadsheet would run as a formula
("=", "+", "@" first) is opened with an apostrophe, as OWASP advises against CSV injection: a
policy is user text, and opening the export must not run it."""

from __future__ import annotations

import csv
import io

from regintel.reports.audit_report import AuditReport
from regintel.reports.tables import MATRIX_COLUMNS, Cell, matrix_cells


def to_csv(report: AuditReport) -> bytes:
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(MATRIX_COLUMNS)
    for line in report.matrix:
        writer.writerow([_inert(c) for c in matrix_cells(line)])
    return out.getvalue().encode("utf-8-sig")


def _inert(cell: Cell) -> Cell:
    return "'" + cell if isinstance(cell, str) and cell[:1] in ("=", "+", "@") else cell
