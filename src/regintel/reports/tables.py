"""The columns of the report's tables and the summary's lines, shared by the CSV, XLSX and
DOCX exporters so the three say the same thing in the same order."""

from __future__ import annotations

from regintel.reports.audit_report import SEVERITIES, AuditReport, MatrixLine, ReportFinding
from regintel.reports.review_lines import (
    PROPOSAL_LABELS,
    STATUS_LABELS,
    ExcludedLine,
    decision_label,
    iso_minute,
    sign_off_lines,
)

FINDING_COLUMNS = ("#", "Severity", "Kind", "Regulation", "Rule", "Rule text (verbatim)",
                   "Rule citation", "Policy text (verbatim)", "Policy citation", "Consequence",
                   "Fix", "Confidence")
# What the officer works down first (where the row stands and who decided what), then what
# the row is about.
MATRIX_COLUMNS = ("Rule", "Status", "Proposed", "Score", "Decision", "Decided by",
                  "Decided at", "Regulation", "Obligation (verbatim)", "Reason",
                  "Policy clause", "Policy text (verbatim)", "Note", "Gap detail", "Fix",
                  "Citation", "Finding #")
EXCLUDED_COLUMNS = ("Party", "Obligations", "Reason", "Regulation", "Rules (examples)")
Cell = str | int | float


def finding_cells(finding: ReportFinding) -> list[Cell]:
    return [finding.number, finding.severity, finding.kind, finding.regulation, finding.rule,
            finding.rule_quote, finding.rule_location, finding.policy_quote,
            finding.policy_location, finding.consequence, finding.fix, finding.confidence]


def matrix_cells(line: MatrixLine) -> list[Cell]:
    return [line.rule, STATUS_LABELS[line.review],
            PROPOSAL_LABELS[line.proposed] if line.proposed is not None else "",
            line.priority if line.priority is not None else "",
            decision_label(line.decision, line.reopened), line.decided_by,
            iso_minute(line.decided_at), line.regulation, line.obligation, line.reason,
            line.policy_clause, line.policy_quote, line.note, line.detail, line.fix,
            line.citation, line.finding if line.finding is not None else ""]


def excluded_cells(line: ExcludedLine) -> list[Cell]:
    return [line.party, line.obligations, line.reason, line.regulation, line.rules]


def summary_pairs(report: AuditReport) -> list[tuple[str, str]]:
    """The summary's facts, label then value, in reading order: the counts first, what the
    engine proved apart from what it only proposed."""
    counts = ", ".join(f"{report.count(s)} {s}" for s in SEVERITIES)
    pairs = [("Report", report.title),
             ("Audited", report.policy or "—"),
             ("Against", "; ".join(report.regulations) or "—"),
             ("Date", report.created_at.strftime("%d %B %Y %H:%M UTC")),
             ("Status", report.progress.headline()),
             ("Engine's reading", report.progress.engine_reading())]
    if report.excluded:
        pairs.append(("Not applicable", "; ".join(
            f"{e.party} ({e.obligations} obligation{'' if e.obligations == 1 else 's'})"
            for e in report.excluded)))
    pairs += [("Findings listed", f"{len(report.findings)} ({counts}); the matrix's Status "
               "says which are proven"),
              ("Matrix rows", str(len(report.matrix))),
              ("Engine", report.engine or "—")]
    if report.matrix_source == "findings_and_rules_checked":
        pairs.append(("Matrix basis", "the findings and the rules the audit checked; a rule "
                      "checked with no finding is not a finding of compliance"))
    return pairs


def sign_off(report: AuditReport) -> list[str]:
    """The sign-off block's lines: the review's progress, then the line to sign."""
    return sign_off_lines(report.progress, report.signed_off)
