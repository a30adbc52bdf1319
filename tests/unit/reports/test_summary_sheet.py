"""The Summary sheet both Excel exports share (reports.xlsx_export.summary_workbook): the
audit report's and a tabular report's (the impact of a new version). Titles, names and
summaries are the library's and the users' words: written as text, never run as a formula or
read as an error code."""

from __future__ import annotations

import io

from openpyxl import load_workbook

from regintel.reports.tabular import TabularReport, to_xlsx

FORMULA = "=HYPERLINK(\"http://x.test\")"


def test_a_tabular_summary_is_labelled_text_each_row_as_tall_as_its_text() -> None:
    report = TabularReport(title="Impact of Rules 2025", summary=[("From", FORMULA), ("To", "#N/A"),
                                                   ("Notes", "word " * 200)])
    sheet = load_workbook(io.BytesIO(to_xlsx(report)))["Summary"]
    assert sheet["A1"].value == "Impact of Rules 2025" and sheet["A1"].font.bold
    assert [(r[0].value, r[1].value) for r in sheet.iter_rows(min_row=3)] == [
        ("From", FORMULA), ("To", "#N/A"), ("Notes", "word " * 200)]
    assert {c.data_type for row in sheet.iter_rows() for c in row if c.value} == {"s"}
    assert all(sheet.cell(n, 1).font.bold for n in (3, 4, 5))
    heights = [sheet.row_dimensions[n].height for n in (3, 4, 5)]
    assert heights[0] == heights[1] < heights[2]  # a long value wraps onto more lines
