"""The impact report as files an officer hands on: the XLSX and DOCX read back, each table
with its rows and the summary's counts."""

from __future__ import annotations

import io
import uuid
from datetime import UTC, datetime

from docx import Document as read_docx
from openpyxl import load_workbook

from regintel.changes.impact import obligation_impact
from regintel.changes.impact_export import to_docx, to_xlsx
from regintel.changes.impacting import AffectedDecision, AffectedItem, ImpactReport
from regintel.changes.report import compare_texts
from tests.unit.changes.test_impact import NEW, OLD, _register


def _report() -> ImpactReport:
    changes = compare_texts(OLD, NEW, "Records rule 2019", "Records rule 2024")
    impacts = obligation_impact(changes, _register(OLD, "2019"), _register(NEW, "2024"))
    altered = next(i for i in impacts if i.kind == "altered")
    decision = AffectedDecision(policy="record keeping policy", rule=None, decision="met",
                                decided_by="Ada Officer",
                                decided_at=datetime(2026, 3, 1, 9, 30, tzinfo=UTC),
                                impact=altered)
    item = AffectedItem(project_id=uuid.uuid4(), project="Records 2024",
                        entity_id=uuid.uuid4(), kind="requirement",
                        title="Keep records five years", state="open",
                        quote="Records must be kept for five years", change=altered.change or 0,
                        summary=altered.summary)
    return ImpactReport(old_id=uuid.uuid4(), new_id=uuid.uuid4(), old_name=changes.old_name,
                        new_name=changes.new_name, obligations=impacts, decisions=[decision],
                        items=[item])


def test_xlsx_has_the_summary_and_one_sheet_per_table() -> None:
    book = load_workbook(io.BytesIO(to_xlsx(_report())))
    assert book.sheetnames == ["Summary", "Obligations", "Decisions reopened", "Project items"]
    summary = {r[0]: r[1] for r in book["Summary"].iter_rows(min_row=3, values_only=True)}
    assert summary["Obligations"] == "1 altered, 1 removed, 1 added, 1 editorial only"
    assert summary["Decisions reopened"] == "1 in 1 policy: record keeping policy"
    rows = list(book["Obligations"].iter_rows(values_only=True))
    assert rows[1][0] == "Altered" and str(rows[1][3]).startswith("Records must be kept for five")
    assert rows[1][6] == "Review again: decisions on it reopen"
    assert list(book["Decisions reopened"].iter_rows(values_only=True))[1][:3] == (
        "record keeping policy", "7.1(a)", "Met")


def test_docx_has_each_table_with_its_count() -> None:
    document = read_docx(io.BytesIO(to_docx(_report())))
    headings = [p.text for p in document.paragraphs
                if p.style is not None and str(p.style.name).startswith("Heading")]
    assert headings == ["Obligations (4)", "Decisions reopened (1)", "Project items (1)"]
    texts = "\n".join(c.text for t in document.tables for row in t.rows for c in row.cells)
    assert "Records must be kept for six years from the date of the transaction." in texts
    assert "Keep records five years" in texts
