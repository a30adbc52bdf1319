"""The report as a Word document (python-docx): the summary, the findings grouped by severity
(each with the rule's words and the policy's, verbatim, where they stand, and the fix), then
the full matrix with its citations in a landscape section."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from regintel.domain.documents import short_title
from regintel.errors import ConfigurationError
from regintel.reports.audit_report import AuditReport, MatrixLine, ReportFinding
from regintel.reports.tables import summary_pairs

if TYPE_CHECKING:
    from docx.document import Document as DocxDocument
    from docx.table import Table

MATRIX_HEADERS = ("Rule", "Obligation (verbatim)", "Status", "Policy (verbatim)",
                  "Gap and fix", "Citation")
# Column widths in centimetres: a landscape page (A4 or Letter) with 1.5 cm margins holds
# about 24.5 cm of table.
MATRIX_WIDTHS_CM = (2.6, 6.4, 2.0, 5.4, 5.4, 2.6)
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
    _matrix(document, report)
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
    _widths(table, SUMMARY_WIDTHS_CM)
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
    _repeat_header(table)
    for line in report.matrix:
        for cell, text in zip(table.add_row().cells, _matrix_texts(line), strict=True):
            cell.text = text
    _widths(table, MATRIX_WIDTHS_CM)
    _small(table)


def _matrix_texts(line: MatrixLine) -> list[str]:
    status = line.status + (f" · {line.severity}" if line.severity else "") + (
        f" · finding {line.finding}" if line.finding is not None else "")
    policy = line.policy_quote + (f" ({line.policy_clause})" if line.policy_clause else "")
    gap = "\n".join(p for p in (line.detail, f"Fix: {line.fix}" if line.fix else "") if p)
    return [f"{short_title(line.regulation)} {line.rule}".strip(), line.obligation, status,
            policy, gap,
            line.citation]


def _widths(table: Table, centimetres: tuple[float, ...]) -> None:
    """Fixed column widths (Word and LibreOffice read them from every cell)."""
    from docx.shared import Cm

    table.autofit = False
    for column, width in zip(table.columns, centimetres, strict=True):
        column.width = Cm(width)  # the grid, which LibreOffice reads
    for row in table.rows:
        for cell, width in zip(row.cells, centimetres, strict=True):
            cell.width = Cm(width)


def _repeat_header(table: Table) -> None:
    """The header row repeats on every page of a long matrix."""
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    properties = table.rows[0]._tr.get_or_add_trPr()
    header = OxmlElement("w:tblHeader")
    header.set(qn("w:val"), "true")
    properties.append(header)


def _small(table: Table) -> None:
    from docx.shared import Pt

    for row in table.rows:
        for cell in row.cells:
            for paragraph in cell.paragraphs:
                for run in paragraph.runs:
                    run.font.size = Pt(8)


def _colour(run: object, hex_colour: str) -> None:
    from docx.shared import RGBColor

    run.font.color.rgb = RGBColor.from_string(hex_colour)  # type: ignore[attr-defined]
