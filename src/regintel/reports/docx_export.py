"""The report as a Word document (python-docx): the summary, the findings grouped by severity
(each with the rule's words and the policy's, verbatim, where they stand, and the fix), the
scope and the parties left out, the full matrix in review order with its decisions and
citations in a landscape section, then a sign-off page."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from regintel.domain.documents import short_title
from regintel.errors import ConfigurationError
from regintel.reports.audit_report import AuditReport, MatrixLine, ReportFinding
from regintel.reports.review_lines import (
    PROPOSAL_LABELS,
    STATUS_LABELS,
    decision_label,
    iso_minute,
)
from regintel.reports.tables import sign_off, summary_pairs

if TYPE_CHECKING:
    from docx.document import Document as DocxDocument
    from docx.table import Table

MATRIX_HEADERS = ("Rule", "Obligation (verbatim)", "Status", "Decision", "Policy (verbatim)",
                  "Gap and fix", "Citation")
# Column widths in centimetres: a landscape page (A4 or Letter) with 1.5 cm margins holds
# about 24.5 cm of table.
MATRIX_WIDTHS_CM = (2.3, 5.6, 2.8, 3.0, 4.8, 4.2, 1.8)
MARGIN_CM = 1.5
SUMMARY_WIDTHS_CM = (3.6, 12.4)
SEVERITY_COLOUR = {"Critical": "B42318", "High": "C4540A", "Medium": "A57A00", "Low": "3B7A2A"}


def to_docx(report: AuditReport) -> bytes:
    try:
        from docx import Document
    except ImportError as exc:
        raise ConfigurationError("DOCX export needs python-docx",
                                 hint="pip install 'regintel[reports]'") from exc
    document = Document()
    _styles(document)
    document.core_properties.title = report.title
    document.add_heading(report.title, level=0)
    _summary(document, report)
    _findings(document, report)
    _scope(document, report)
    _excluded(document, report)
    _matrix(document, report)
    _sign_off(document, report)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def _styles(document: DocxDocument) -> None:
    from docx.shared import Pt

    document.styles["Normal"].font.name = "Calibri"
    document.styles["Normal"].font.size = Pt(10)


def _summary(document: DocxDocument, report: AuditReport) -> None:
    document.add_heading("Summary", level=1)
    table = document.add_table(rows=0, cols=2)
    table.style = "Table Grid"
    for label, value in summary_pairs(report):
        cells = table.add_row().cells
        cells[0].text, cells[1].text = label, value
        cells[0].paragraphs[0].runs[0].bold = True
    column_widths(table, SUMMARY_WIDTHS_CM)
    if report.summary:
        document.add_paragraph()
        document.add_paragraph(report.summary)


def _scope(document: DocxDocument, report: AuditReport) -> None:
    """Which parts of the regulations were checked and which were not, and why: after the
    findings, which a reader comes for first (a regulation has a hundred parts to list)."""
    if not (report.scope_checked or report.scope_not_checked):
        return
    document.add_heading("Scope", level=1)
    for label, parts in (("Checked", report.scope_checked),
                         ("Not checked", report.scope_not_checked)):
        if parts:
            document.add_heading(f"{label} ({len(parts)})", level=2)
            for part in parts:
                document.add_paragraph(part, style="List Bullet")


def _excluded(document: DocxDocument, report: AuditReport) -> None:
    """The parties whose obligations the matrix left out, so a reader sees they were set
    aside on purpose, and why, rather than missed."""
    if not report.excluded:
        return
    document.add_heading("Not applicable", level=1)
    document.add_paragraph("Obligations of these parties are not rows of the matrix: they "
                           "bind parties the audited policy does not govern.")
    for party in report.excluded:
        where = f" ({party.regulation})" if party.regulation else ""
        count = f"{party.obligations} obligation{'' if party.obligations == 1 else 's'}"
        document.add_paragraph(f"{party.party}{where} — {count}: {party.reason}",
                               style="List Bullet")


def _sign_off(document: DocxDocument, report: AuditReport) -> None:
    """A page of its own, upright, after the matrix: it is printed and signed."""
    from docx.enum.section import WD_ORIENT, WD_SECTION

    section = document.add_section(WD_SECTION.NEW_PAGE)
    section.orientation = WD_ORIENT.PORTRAIT
    section.page_width, section.page_height = section.page_height, section.page_width
    document.add_heading("Sign-off", level=1)
    for line in sign_off(report):
        document.add_paragraph(line)


def _findings(document: DocxDocument, report: AuditReport) -> None:
    document.add_heading("Findings by severity", level=1)
    if not report.findings:
        document.add_paragraph(
            "The audit raised no finding. That is not a finding of compliance: it covers only "
            "the rules listed as checked.")
        return
    for severity, findings in report.by_severity():
        if not findings:
            continue
        heading = document.add_heading(f"{severity} ({len(findings)})", level=2)
        _colour(heading.runs[0], SEVERITY_COLOUR[severity])
        for finding in findings:
            _finding(document, finding)


def _finding(document: DocxDocument, finding: ReportFinding) -> None:
    kind = "Conflict" if finding.kind == "conflict" else "Gap"
    rule = f"{finding.regulation} {finding.rule}".strip()
    document.add_heading(f"{finding.number}. {kind} — {rule}", level=3)
    _quoted(document, "The rule says", finding.rule_quote, finding.rule_location)
    if finding.policy_quote:
        _quoted(document, "The policy says", finding.policy_quote, finding.policy_location)
    else:
        _labelled(document, "The policy says", "nothing that meets this rule.")
    if finding.consequence:
        _labelled(document, "Why it matters", finding.consequence)
    if finding.fix:
        _labelled(document, "What to change", finding.fix)


def _quoted(document: DocxDocument, label: str, quote: str, where: str) -> None:
    paragraph = document.add_paragraph()
    paragraph.add_run(f"{label}: ").bold = True
    paragraph.add_run(f"“{quote}”").italic = True
    if where:
        paragraph.add_run(f" ({where})")


def _labelled(document: DocxDocument, label: str, text: str) -> None:
    paragraph = document.add_paragraph()
    paragraph.add_run(f"{label}: ").bold = True
    paragraph.add_run(text)


def _matrix(document: DocxDocument, report: AuditReport) -> None:
    from docx.enum.section import WD_ORIENT, WD_SECTION
    from docx.shared import Cm

    section = document.add_section(WD_SECTION.NEW_PAGE)
    section.orientation = WD_ORIENT.LANDSCAPE
    section.page_width, section.page_height = section.page_height, section.page_width
    section.left_margin = section.right_margin = Cm(MARGIN_CM)
    document.add_heading("Full matrix", level=1)
    if report.matrix_source == "findings_and_rules_checked":
        document.add_paragraph(
            "Rows: each finding, then each rule the audit checked without a finding. A rule "
            "checked without a finding is not a finding of compliance.")
    table = document.add_table(rows=1, cols=len(MATRIX_HEADERS))
    table.style = "Table Grid"
    for cell, header in zip(table.rows[0].cells, MATRIX_HEADERS, strict=True):
        cell.text = header
        cell.paragraphs[0].runs[0].bold = True
    repeat_header(table)
    for line in report.matrix:
        for cell, text in zip(table.add_row().cells, _matrix_texts(line), strict=True):
            cell.text = text
    column_widths(table, MATRIX_WIDTHS_CM)
    small(table)


def _matrix_texts(line: MatrixLine) -> list[str]:
    proposal = " · ".join(p for p in (
        PROPOSAL_LABELS[line.proposed] if line.proposed is not None else "",
        f"{line.priority:.2f}" if line.priority is not None else "") if p)
    engine = line.coverage + (f" · {line.severity}" if line.severity else "") + (
        f" · finding {line.finding}" if line.finding is not None else "")
    status = _lines(STATUS_LABELS[line.review], proposal, line.reason, engine)
    decided = " · ".join(p for p in (line.decided_by, iso_minute(line.decided_at)) if p)
    decision = _lines(decision_label(line.decision, line.reopened), decided, line.note)
    policy = line.policy_quote + (f" ({line.policy_clause})" if line.policy_clause else "") + (
        "\n(the clause the decision relied on)" if line.relied_on else "")
    gap = _lines(line.detail, f"Fix: {line.fix}" if line.fix else "")
    return [f"{short_title(line.regulation)} {line.rule}".strip(), line.obligation, status,
            decision, policy, gap, line.citation]


def _lines(*parts: str) -> str:
    return "\n".join(p for p in parts if p)


def column_widths(table: Table, centimetres: tuple[float, ...]) -> None:
    """Fixed column widths (Word and LibreOffice read them from every cell)."""
    from docx.shared import Cm

    table.autofit = False
    for column, width in zip(table.columns, centimetres, strict=True):
        column.width = Cm(width)  # the grid, which LibreOffice reads
    for row in table.rows:
        for cell, width in zip(row.cells, centimetres, strict=True):
            cell.width = Cm(width)


def repeat_header(table: Table) -> None:
    """The header row repeats on every page of a long matrix."""
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    properties = table.rows[0]._tr.get_or_add_trPr()
    header = OxmlElement("w:tblHeader")
    header.set(qn("w:val"), "true")
    properties.append(header)


def small(table: Table) -> None:
    from docx.shared import Pt

    for row in table.rows:
        for cell in row.cells:
            for paragraph in cell.paragraphs:
                for run in paragraph.runs:
                    run.font.size = Pt(8)


def _colour(run: object, hex_colour: str) -> None:
    from docx.shared import RGBColor

    run.font.color.rgb = RGBColor.from_string(hex_colour)  # type: ignore[attr-defined]
