"""An audit as a report a compliance officer can hand on: a summary, the findings by severity
and the full matrix, each row with its citation. The exporters (CSV, XLSX, DOCX) read only
this model, so where its rows come from is decided here once.

The rows come from the audit's coverage matrix (``domain.coverage.CoverageMatrix``: every
in-scope obligation with its status) when the audit carries one, in its review order, each
with the officer's decision on it (issue 47). An audit without a matrix (the engines before
it, and old threads) still has a matrix of what it did check: a row per finding, and a row
per rule it checked that no finding names, marked as checked with no finding - which is not
a finding of compliance, and the report says so. Nothing proved those rows: each is one to
review."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from regintel.domain.chat import AuditFinding, AuditResult, Citation, Severity
from regintel.domain.coverage import CoverageMatrix, CoverageRow, Proposal, ReviewStatus
from regintel.domain.review import Decision, RowReview
from regintel.reports.review_lines import (
    ExcludedLine,
    ReviewProgress,
    SignOff,
    decision_fields,
    excluded_lines,
    tally,
)

SEVERITIES: tuple[Severity, ...] = ("Critical", "High", "Medium", "Low")
NO_FINDING = "checked, no finding"
MatrixSource = Literal["coverage_matrix", "findings_and_rules_checked"]


class ReportFinding(BaseModel):
    number: int = Field(ge=1)
    severity: Severity
    kind: Literal["gap", "conflict"]
    theme: str = ""
    regulation: str
    rule: str = ""
    rule_quote: str
    rule_location: str = ""
    policy_quote: str = ""
    policy_location: str = ""
    consequence: str = ""
    fix: str = ""
    confidence: float = 0.0


class MatrixLine(BaseModel):
    """One row of the matrix, flat: what a spreadsheet column or a table cell shows."""

    regulation: str
    rule: str = ""
    obligation: str = Field(description="The rule's text (with its list items), verbatim.")
    review: ReviewStatus = Field("review", description="Where the row stands in the review; "
                                 "a row no matrix proved (an audit without one) is to review.")
    proposed: Proposal | None = None
    priority: float | None = Field(None, description="How likely a gap, 2 decimals; None "
                                   "for a row the matrix did not rank.")
    reason: str = ""
    coverage: str = Field(description="covered, partial, missing, conflicting (from the "
                          f"matrix) or gap, conflict, '{NO_FINDING}' (without one).")
    severity: Severity | None = None
    policy_quote: str = Field("", description="The clause a standing decision relied on, "
                              "else the policy's clauses that address the rule, verbatim.")
    policy_clause: str = ""
    relied_on: bool = Field(False, description="Whether policy_quote is the decision's clause.")
    detail: str = Field("", description="What is missing or differs: list items, conditions, "
                        "'five years vs at least six years'.")
    fix: str = ""
    citation: str = Field("", description="Where the rule's text is: page or section and lines.")
    finding: str | None = Field(None, description="The number of the finding (or findings, "
                                "'3, 8': two items of one rule missing) the row gave.")
    decision: Decision | None = Field(None, description="The standing decision, if any.")
    reopened: str | None = Field(None, description="Why an earlier decision no longer stands.")
    decided_by: str = ""
    decided_at: datetime | None = None
    note: str = ""


class AuditReport(BaseModel):
    title: str
    conversation_title: str = ""
    created_at: datetime
    engine: str = ""
    mode: Literal["text", "policy"]
    policy: str = Field("", description="The audited document's title, or 'pasted text'.")
    regulations: list[str] = Field(default_factory=list)
    # Counts, not the chat's overall label: that label would call rows nobody proved
    # violations.
    progress: ReviewProgress = Field(default_factory=ReviewProgress)
    signed_off: SignOff | None = None
    excluded: list[ExcludedLine] = Field(default_factory=list)
    summary: str = ""
    findings: list[ReportFinding] = Field(default_factory=list)
    matrix: list[MatrixLine] = Field(default_factory=list)
    matrix_source: MatrixSource
    scope_checked: list[str] = Field(default_factory=list)
    scope_not_checked: list[str] = Field(default_factory=list)

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    def by_severity(self) -> list[tuple[Severity, list[ReportFinding]]]:
        return [(s, [f for f in self.findings if f.severity == s]) for s in SEVERITIES]


def build_report(audit: AuditResult, citations: Sequence[Citation], *, title: str,
                 created_at: datetime, engine: str = "", conversation_title: str = "",
                 policy: str = "", regulations: Sequence[str] = (),
                 matrix: CoverageMatrix | None = None,
                 reviews: Mapping[str, RowReview] | None = None,
                 signed_off: SignOff | None = None) -> AuditReport:
    """The report of one audit turn: its findings numbered by severity, most severe first,
    and the matrix's rows in review order, each with its decision from ``reviews`` (keyed by
    obligation key), or, without a matrix, the findings and the rules checked."""
    cited = {c.n: c for c in citations}
    ordered = sorted(audit.findings, key=lambda f: (SEVERITIES.index(f.severity),
                                                    -f.confidence_score))
    findings = [_finding(i, f, cited) for i, f in enumerate(ordered, start=1)]
    named = list(regulations) + [f.target_doc_title for f in audit.findings]
    excluded: list[ExcludedLine] = []
    if matrix is not None:
        named += [r.obligation.document_title for r in matrix.rows]
        decided = reviews or {}
        lines = _numbered([_matrix_line(row, decided.get(row.key)) for row in matrix.queue],
                          ordered, findings)
        source: MatrixSource = "coverage_matrix"
        checked = [f"{p.document_title}: {p.section} ({p.reason})" for p in matrix.scope
                   if p.checked]
        not_checked = [f"{p.document_title}: {p.section} ({p.reason})" for p in matrix.scope
                       if not p.checked]
        policy = policy or matrix.policy_title
        excluded = excluded_lines(matrix)
    else:
        lines = [_finding_line(f, n) for f, n in zip(ordered, findings, strict=True)]
        lines += [_checked_line(rule, named) for rule in audit.rules_checked
                  if not any(_names(rule, f) for f in audit.findings)]
        source = "findings_and_rules_checked"
        checked, not_checked = _rules_by_document(audit.rules_checked, named), []
    return AuditReport(
        title=title, conversation_title=conversation_title, created_at=created_at,
        engine=engine, mode=audit.mode,
        policy=policy or ("pasted text" if audit.mode == "text" else ""),
        regulations=[r for r in dict.fromkeys(named) if r], progress=tally(lines),
        signed_off=signed_off, excluded=excluded,
        summary=audit.summary, findings=findings, matrix=lines, matrix_source=source,
        scope_checked=checked, scope_not_checked=not_checked)


def _finding(number: int, finding: AuditFinding, cited: dict[int, Citation]) -> ReportFinding:
    target, source = _locations(finding, cited)
    return ReportFinding(
        number=number, severity=finding.severity, kind=finding.kind, theme=finding.theme or "",
        regulation=finding.target_doc_title, rule=finding.target_clause or "",
        rule_quote=finding.target_quote, rule_location=target,
        policy_quote=finding.source_quote or "", policy_location=source,
        consequence=finding.consequence, fix=finding.suggestion,
        confidence=round(finding.confidence_score, 2))


def _locations(finding: AuditFinding, cited: dict[int, Citation]) -> tuple[str, str]:
    """Where the rule's quote and the policy's quote are, from the finding's citations (the
    one on the target document is the rule's, any other the policy's)."""
    target = source = ""
    for n in finding.citations:
        citation = cited.get(n)
        if citation is None:
            continue
        if citation.document_id == finding.target_doc_id and not target:
            target = citation.location
        elif citation.document_id != finding.target_doc_id and not source:
            source = citation.location
    if not target and finding.target_page is not None:
        target = f"page {finding.target_page}"
    return target, source


def _finding_line(finding: AuditFinding, numbered: ReportFinding) -> MatrixLine:
    """A finding no matrix row holds: the engine listed it, nothing proved it."""
    return MatrixLine(
        regulation=finding.target_doc_title, rule=finding.target_clause or "",
        obligation=finding.target_quote,
        proposed="contradicted" if finding.kind == "conflict" else "missing",
        reason=f"listed as a {finding.kind} by the engine, not proven",
        coverage=finding.kind, severity=finding.severity,
        policy_quote=finding.source_quote or "", policy_clause=numbered.policy_location,
        detail=finding.consequence, fix=finding.suggestion,
        citation=numbered.rule_location, finding=str(numbered.number))


def _numbered(lines: list[MatrixLine], ordered: Sequence[AuditFinding],
              numbered: Sequence[ReportFinding]) -> list[MatrixLine]:
    """The matrix's rows, each finding's number on the row it fell out of (its regulation and
    rule, a row that is not covered); a finding no row holds gets a row of its own, so the
    matrix lists every finding."""
    out = list(lines)
    for finding, number in zip(ordered, numbered, strict=True):
        clause = finding.target_clause or ""
        rows = [i for i, line in enumerate(out) if line.coverage != "covered"
                and line.regulation == finding.target_doc_title and _of_rule(clause, line.rule)]
        # The rule's own row before a row of a rule whose number merely starts alike.
        at = min(rows, key=lambda i: (out[i].rule != clause, -len(out[i].rule)), default=None)
        if at is None:
            out.append(_finding_line(finding, number))
        else:
            said = out[at].finding
            out[at] = out[at].model_copy(update={
                "finding": f"{said}, {number.number}" if said else str(number.number)})
    return out


def _of_rule(clause: str, rule: str) -> bool:
    """A finding's clause is the rule's, or one of its items ("4.4.2(c)" of "4.4.2")."""
    return bool(rule) and (clause == rule or (clause.startswith(rule)
                                              and clause[len(rule):].startswith("(")))


def _matrix_line(row: CoverageRow, review: RowReview | None) -> MatrixLine:
    rule = row.obligation
    text = rule.text
    if rule.items:
        text = "\n".join([rule.lead_in or rule.text] + [f"{i.label} {i.text}" for i in rule.items])
    details = ([f"missing item: {m}" for m in row.missing_items]
               + [f"missing condition: {m}" for m in row.missing_conditions]
               + [d.statement for d in row.differing_facts])
    where = f"page {rule.page}" if rule.page is not None else (rule.section or "")
    quotes = row.policy_quotes if row.status != "missing" else ()
    decided, clause = decision_fields(review)
    if clause:
        # The officer's reading stands over the engine's match: the row shows the words the
        # decision relied on, and the clause number of the engine's quote that holds them.
        quoted, refs = clause, ", ".join(q.clause for q in row.policy_quotes
                                         if q.clause and clause in q.quote)
    else:
        # A missing row's quotes are only the closest sentences, none of which meets the
        # rule: shown, they would read as the policy's answer to the rule.
        quoted = "\n".join(q.quote for q in quotes)
        refs = ", ".join(q.clause for q in quotes if q.clause)
    return MatrixLine(
        regulation=rule.document_title, rule=rule.rule or "", obligation=text,
        review=row.review, proposed=row.proposed, priority=round(row.priority, 2),
        reason=row.reason, coverage=row.status, severity=row.severity,
        policy_quote=quoted, policy_clause=refs, relied_on=bool(clause),
        detail="; ".join(details), fix=row.fix, citation=where, **decided)


def _title_of(rule: str, titles: Sequence[str]) -> str:
    """The document a checked rule ("<title> <clause>") belongs to: the longest title it
    starts with, or "" when none is known."""
    return max((t for t in titles if t and rule.startswith(t)), key=len, default="")


def _checked_line(rule: str, titles: Sequence[str]) -> MatrixLine:
    title = _title_of(rule, titles)
    clause = rule[len(title):].strip() if title else ""
    return MatrixLine(regulation=title or rule, rule=clause, obligation="", coverage=NO_FINDING,
                      reason=f"{NO_FINDING}: not a finding of compliance")


def _rules_by_document(rules: Sequence[str], titles: Sequence[str]) -> list[str]:
    """The rules checked, counted a document ("AML — 314 rules, each a row of the matrix"):
    the list itself is the matrix's, where hundreds of numbers are read in context."""
    by_title: dict[str, int] = {}
    for rule in rules:
        title = _title_of(rule, titles)
        by_title[title] = by_title.get(title, 0) + 1
    return [f"{title or 'Other'} — {count} rule{'s' if count != 1 else ''} checked, each a row "
            "of the matrix" for title, count in by_title.items()]


def _names(rule: str, finding: AuditFinding) -> bool:
    """Whether ``finding`` is on the checked rule ``rule`` ("<title> <clause>"), or on one of
    its items."""
    ref = f"{finding.target_doc_title} {finding.target_clause}" if finding.target_clause \
        else finding.target_doc_title
    return ref == rule or (ref.startswith(rule) and ref[len(rule):len(rule) + 1] in (".", "("))
