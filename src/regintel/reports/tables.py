"""The columns of the report's two tables, shared by the CSV, XLSX and DOCX exporters so the
three say the same thing in the same order."""

from __future__ import annotations

from regintel.reports.audit_report import AuditReport, MatrixLine, ReportFinding

FINDING_COLUMNS = ("#", "Severity", "Kind", "Regulation", "Rule", "Rule text (verbatim)",
                   "Rule citation", "Policy text (verbatim)", "Policy citation", "Consequence",
                   "Fix", "Confidence")
MATRIX_COLUMNS = ("Regulation", "Rule", "Obligation (verbatim)", "Status", "Severity",
                  "Policy clause", "Policy text (verbatim)", "Gap detail", "Fix", "Citation",
                  "Finding #")
Cell = str | int | float


def finding_cells(finding: ReportFinding) -> list[Cell]:
    return [finding.number, finding.severity, finding.kind, finding.regulation, finding.rule,
            finding.rule_quote, finding.rule_location, finding.policy_quote,
            finding.policy_location, finding.consequence, finding.fix, finding.confidence]


def matrix_cells(line: MatrixLine) -> list[Cell]:
    return [line.regulation, line.rule, line.obligation, line.status, line.severity or "",
            line.policy_clause, line.policy_quote, line.detail, line.fix, line.citation,
            line.finding if line.finding is not None else ""]


def summary_pairs(report: AuditReport) -> list[tuple[str, str]]:
    """The summary's facts, label then value, in reading order."""
    counts = ", ".join(f"{report.count(s)} {s}" for s in ("Critical", "High", "Medium", "Low"))
    pairs = [("Report", report.title),
             ("Audited", report.policy or "—"),
             ("Against", "; ".join(report.regulations) or "—"),
             ("Date", report.created_at.strftime("%d %B %Y %H:%M UTC")),
             ("Overall status", report.overall_status),
             ("Findings", f"{len(report.findings)} ({counts})"),
             ("Matrix rows", str(len(report.matrix))),
             ("Engine", report.engine or "—")]
    if report.matrix_source == "findings_and_rules_checked":
        pairs.append(("Matrix basis", "the findings and the rules the audit checked; a rule "
                      "checked with no finding is not a finding of compliance"))
    return pairs
