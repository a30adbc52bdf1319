"""The matrix as CSV, and nothing else: the header, then one row per matrix line in review
order (the findings are its rows with a finding number), so the file loads as a table. The
summary and the sign-off are in the XLSX and DOCX reports.

UTF-8 with a byte-order mark so spreadsheet programs read the quotes' accents and dashes
correctly. A cell that a spreadsheet would run as a formula ("=", "+", "@" first) is opened
with an apostrophe, as OWASP advises against CSV injection: a policy is user text, and
opening the export must not run it."""

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
    if isinstance(cell, float):  # a score: 0.90, not 0.9, so the column lines up
        return f"{cell:.2f}"
    return "'" + cell if isinstance(cell, str) and cell[:1] in ("=", "+", "@") else cell
