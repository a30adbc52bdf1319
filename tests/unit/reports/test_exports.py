"""The report exporters over both kinds of audit: one that carries a coverage matrix (every
row, its status, what differs, the policy's quote) and one that does not (the findings and
the rules checked). Each file is written, then read back with openpyxl, csv and python-docx."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from uuid import uuid4

from docx import Document
from openpyxl import load_workbook

from regintel.domain.chat import AuditFinding, AuditResult, Citation
from regintel.domain.coverage import (
    CoverageMatrix,
    CoverageRow,
    FactDifference,
    ObligationItem,
    ObligationRow,
    PolicyQuote,
    ScopePart,
)
from regintel.reports.audit_report import NO_FINDING, build_report
from regintel.reports.export import ExportFormat, export
from regintel.reports.tables import MATRIX_COLUMNS

REG, POLICY = uuid4(), uuid4()
WHEN = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
RETENTION = ("A Relevant Person must keep the records for at least six years from the date "
             "on which the business relationship ends.")
POLICY_RETENTION = "Records are kept for five years after the account closes."


def _finding(clause: str, quote: str, *, kind: str = "gap", severity: str = "Medium",
             source: str | None = None, citations: list[int] | None = None) -> AuditFinding:
    return AuditFinding.model_validate({
        "target_doc_id": REG, "target_doc_title": "Rules", "kind": kind, "severity": severity,
        "consequence": "It may cost.", "source_quote": source, "target_quote": quote,
        "target_clause": clause, "suggestion": "Change it.", "confidence_score": 0.8,
        "citations": citations or []})


def _audit() -> AuditResult:
    return AuditResult(
        mode="policy", overall_status="Major Violations", targets_checked=1,
        summary="Two findings.",
        findings=[_finding("2.1", "The MLRO must report semi-annually."),
                  _finding("1.1", RETENTION, kind="conflict", severity="High",
                           source=POLICY_RETENTION, citations=[1, 2])],
        rules_checked=["Rules 1.1", "Rules 2.1", "Rules 3.1", "Rules 3.1(a)"])


CITATIONS = [Citation(n=1, document_id=REG, title="Rules", clause="1.1", quote=RETENTION,
                      page=4),
             Citation(n=2, document_id=POLICY, title="Policy", quote=POLICY_RETENTION, page=2)]


def _matrix() -> CoverageMatrix:
    def obligation(rule: str, text: str, **extra: object) -> ObligationRow:
        return ObligationRow.model_validate({
            "id": uuid4(), "document_id": REG, "document_title": "Rules", "rule": rule,
            "text": text, "modal": "must", "strength": "mandatory", "page": 4, **extra})

    quote = PolicyQuote(document_id=POLICY, chunk_id=uuid4(), quote=POLICY_RETENTION,
                        clause="7.2")
    return CoverageMatrix(
        policy_document_id=POLICY, policy_title="Kite Policy", regulation_ids=(REG,),
        rows=(CoverageRow(obligation=obligation("1.1", RETENTION), status="conflicting",
                          policy_quotes=(quote,), severity="High", fix="Keep six years.",
                          differing_facts=(FactDifference(kind="period", policy="five years",
                                                          rule="at least six years"),)),
              CoverageRow(obligation=obligation(
                  "3.1", "A firm must identify:", lead_in="A firm must identify:",
                  items=(ObligationItem(label="(a)", text="the customer;"),
                         ObligationItem(label="(b)", text="the beneficial owner."))),
                  status="partial", missing_items=("(b) the beneficial owner.",),
                  severity="Medium"),
              CoverageRow(obligation=obligation("4.1", "A firm must train staff."),
                          status="covered", policy_quotes=(quote,))),
        scope=(ScopePart(document_id=REG, document_title="Rules", section="Part 5",
                         checked=False, reason="not near the policy's subjects"),))


def test_without_a_matrix_the_rows_are_the_findings_then_the_rules_checked() -> None:
    report = build_report(_audit(), CITATIONS, title="T", created_at=WHEN, policy="Kite Policy",
                          regulations=["Rules"])
    assert [f.severity for f in report.findings] == ["High", "Medium"]  # most severe first
    assert report.findings[0].rule_location == "page 4 · clause 1.1"
    assert report.findings[0].policy_location.startswith("page 2")
    # 1.1 and 2.1 have findings; 3.1 and its item (a) were checked without one.
    assert [(m.regulation, m.rule, m.coverage) for m in report.matrix] == [
        ("Rules", "1.1", "conflict"), ("Rules", "2.1", "gap"), ("Rules", "3.1", NO_FINDING),
        ("Rules", "3.1(a)", NO_FINDING)]
    # Without a matrix nothing proved a row: the findings are proposals, every row is to
    # review, and the headline counts say so rather than the chat's label.
    assert {m.review for m in report.matrix} == {"review"}
    assert [m.proposed for m in report.matrix] == ["contradicted", "missing", None, None]
    assert report.progress.headline() == "0 findings proven; 4 rows to review"
    assert report.scope_checked == ["Rules — 4 rules checked, each a row of the matrix"]


def test_xlsx_and_csv_of_a_matrix_keep_every_row_and_what_differs() -> None:
    report = build_report(_audit(), CITATIONS, title="T", created_at=WHEN, matrix=_matrix())
    assert report.policy == "Kite Policy" and report.matrix_source == "coverage_matrix"
    book = load_workbook(io.BytesIO(export(report, ExportFormat.XLSX).data))
    rows = list(book["Matrix"].iter_rows(values_only=True))
    rule, number = MATRIX_COLUMNS.index("Rule"), MATRIX_COLUMNS.index("Finding #")
    # The matrix's rows, each finding numbered on its rule's row (1.1 is finding 1); a
    # finding no row holds (2.1) is listed after them, so the matrix holds every finding.
    assert [(r[rule], r[number]) for r in rows[1:]] == [
        ("1.1", "1"), ("3.1", None), ("4.1", None), ("2.1", "2")]
    status = MATRIX_COLUMNS.index("Status")
    assert {r[status] for r in rows[1:]} == {"review"}  # the engine proved none of them
    detail = MATRIX_COLUMNS.index("Gap detail")
    assert rows[1][detail] == "five years vs at least six years"
    assert rows[2][detail] == "missing item: (b) the beneficial owner."
    assert rows[2][MATRIX_COLUMNS.index("Obligation (verbatim)")] == (
        "A firm must identify:\n(a) the customer;\n(b) the beneficial owner.")
    summary = [r for r in book["Summary"].iter_rows(values_only=True) if r and r[0]]
    assert ("Not checked", "Rules: Part 5 (not near the policy's subjects)") in summary

    parsed = list(csv.reader(io.StringIO(export(report, ExportFormat.CSV).data
                                         .decode("utf-8-sig"))))
    assert tuple(parsed[0]) == MATRIX_COLUMNS
    assert [r[rule] for r in parsed[1:]] == ["1.1", "3.1", "4.1", "2.1"]
    assert parsed[1][MATRIX_COLUMNS.index("Policy text (verbatim)")] == POLICY_RETENTION


def test_docx_groups_findings_by_severity_and_tables_the_matrix() -> None:
    report = build_report(_audit(), CITATIONS, title="Audit of Kite", created_at=WHEN,
                          matrix=_matrix())
    document = Document(io.BytesIO(export(report, ExportFormat.DOCX).data))
    headings = [p.text for p in document.paragraphs
                if p.style is not None and str(p.style.name).startswith("Heading")]
    # The findings first, then which parts were checked and which not, then the matrix.
    assert headings.index("High (1)") < headings.index("Medium (1)") < headings.index(
        "Scope") < headings.index("Not checked (1)") < headings.index("Full matrix")
    text = "\n".join(p.text for p in document.paragraphs)
    assert f"“{RETENTION}”" in text and f"“{POLICY_RETENTION}”" in text
    matrix = document.tables[-1]
    assert len(matrix.rows) == 1 + 4
    assert "five years vs at least six years" in matrix.rows[1].cells[5].text
    assert matrix.rows[1].cells[6].text == "page 4"


def test_a_policy_line_that_looks_like_a_formula_stays_text() -> None:
    audit = _audit()
    audit.findings[0].source_quote = "=HYPERLINK(\"http://x.test\")"
    report = build_report(audit, [], title="T", created_at=WHEN)
    book = load_workbook(io.BytesIO(export(report, ExportFormat.XLSX).data))
    findings = list(book["Findings"].iter_rows(values_only=True))
    assert "=HYPERLINK(\"http://x.test\")" in {row[7] for row in findings}
    cell = next(c for row in book["Findings"].iter_rows() for c in row
                if c.value == "=HYPERLINK(\"http://x.test\")")
    assert cell.data_type == "s"
    parsed = io.StringIO(export(report, ExportFormat.CSV).data.decode("utf-8-sig"))
    assert "'=HYPERLINK(\"http://x.test\")" in {c for row in csv.reader(parsed) for c in row}


def test_file_names_are_safe() -> None:
    report = build_report(_audit(), [], title="T", created_at=WHEN,
                          conversation_title="../../etc/passwd; AML audit")
    assert export(report, ExportFormat.CSV).filename == "etc-passwd-AML-audit-20261128-1200.csv"


def test_findings_on_a_rules_items_are_numbered_on_its_row() -> None:
    audit = AuditResult(mode="policy", overall_status="Minor Issues", targets_checked=1,
                        findings=[_finding("3.1(b)", "the beneficial owner."),
                                  _finding("3.1(a)", "the customer;")])
    report = build_report(audit, [], title="T", created_at=WHEN, matrix=_matrix())
    # "3.1(b)" and "3.1(a)" are items of 3.1: its row carries both numbers, and no row is
    # added for them.
    assert [(m.rule, m.finding) for m in report.matrix] == [
        ("1.1", None), ("3.1", "1, 2"), ("4.1", None)]


def test_a_missing_rows_closest_sentence_is_not_shown_as_the_policys_text() -> None:
    closest = PolicyQuote(document_id=POLICY, chunk_id=uuid4(), quote=POLICY_RETENTION,
                          clause="7.2", score=0.31)
    missing = CoverageRow(obligation=ObligationRow.model_validate({
        "id": uuid4(), "document_id": REG, "document_title": "Rules", "rule": "5.1",
        "text": "A firm must appoint an officer.", "modal": "must", "strength": "mandatory"}),
        status="missing", policy_quotes=(closest,), severity="Medium")
    matrix = _matrix().model_copy(update={"rows": (*_matrix().rows, missing)})
    audit = AuditResult(mode="policy", overall_status="Minor Issues", targets_checked=1)
    line = build_report(audit, [], title="T", created_at=WHEN, matrix=matrix).matrix[-1]
    # The policy says nothing that meets the rule: its closest sentence is not its answer.
    assert (line.rule, line.coverage, line.policy_quote, line.policy_clause) == (
        "5.1", "missing", "", "")
    conflicting = build_report(audit, [], title="T", created_at=WHEN, matrix=matrix).matrix[0]
    assert conflicting.policy_quote == POLICY_RETENTION
