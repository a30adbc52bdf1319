"""The exports carry the review (issue 47): the matrix in review order with each row's status,
the engine's proposal and score, the officer's decision (or why it reopened); the summary
counts what the engine proved apart from what it proposed, lists the parties left out, and
ends in a sign-off block. Each file is written, then read back with csv, openpyxl and
python-docx."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta, timezone
from typing import Any, cast
from uuid import UUID, uuid4

import pytest
from docx import Document
from openpyxl import load_workbook

from regintel.domain.chat import AuditFinding, AuditResult
from regintel.domain.conversations import Conversation, StoredMessage
from regintel.domain.coverage import (
    CoverageMatrix,
    CoverageRow,
    ExcludedParty,
    ObligationRow,
    PolicyQuote,
    Proposal,
    ReviewStatus,
)
from regintel.domain.review import Decision, ReviewDecision, RowReview
from regintel.ports.conversations import ConversationStore
from regintel.reports.audit_report import AuditReport, build_report
from regintel.reports.audit_thread import thread_audit_report
from regintel.reports.export import ExportFormat, export
from regintel.reports.review_lines import SIGN_OFF_LINE, SignOff

REG, POLICY = uuid4(), uuid4()
WHEN = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
# Decided in a zone two hours ahead: the report shows it in UTC.
DECIDED = datetime(2026, 11, 29, 9, 15, tzinfo=timezone(timedelta(hours=2)))
TRAINING = "Staff are trained on joining and every year after that."
REOPENED = "the clause relied on is no longer in the policy"
COLUMNS = ("Rule", "Status", "Proposed", "Score", "Decision", "Decided by", "Decided at",
           "Regulation", "Obligation (verbatim)", "Reason", "Policy clause",
           "Policy text (verbatim)", "Note", "Gap detail", "Fix", "Citation", "Finding #")


def _row(rule: str, review: ReviewStatus, proposed: Proposal, priority: float,
         **extra: Any) -> CoverageRow:
    obligation = ObligationRow(id=uuid4(), document_id=REG, document_title="Rules", rule=rule,
                               text=f"A firm must do the thing of rule {rule}.", modal="must",
                               strength="mandatory", page=3)
    return CoverageRow.model_validate({
        "obligation": obligation, "review": review, "proposed": proposed,
        "priority": priority, "reason": f"reason {rule}", **extra})


ROWS = {  # rule → row, one of each review status, and three to review ranked by priority
    "1.1": _row("1.1", "finding", "contradicted", 0.951, status="conflicting",
                severity="High"),
    "2.1": _row("2.1", "review", "missing", 0.7, status="missing", severity="Medium"),
    "2.2": _row("2.2", "review", "unclear", 0.8, status="partial", policy_quotes=(
        PolicyQuote(document_id=POLICY, chunk_id=uuid4(), quote=TRAINING, clause="4.3"),)),
    "2.3": _row("2.3", "review", "unclear", 0.4, status="partial"),
    "3.1": _row("3.1", "likely_met", "met", 0.1, status="covered"),
    "4.1": _row("4.1", "not_applicable", "unclear", 0.0, status="missing"),
}
QUEUE = ["1.1", "2.2", "2.1", "2.3", "3.1", "4.1"]


def _matrix() -> CoverageMatrix:
    scrambled = tuple(ROWS[r] for r in ("3.1", "2.3", "4.1", "2.1", "1.1", "2.2"))
    return CoverageMatrix(
        policy_document_id=POLICY, policy_title="Kite Policy", regulation_ids=(REG,),
        rows=scrambled, excluded=(ExcludedParty(
            document_id=REG, actor="the supervisory authority", obligations=12,
            rules=("9.1", "9.2"), reason="it binds the authority, not a firm"),))


def _decision(rule: str, decision: Decision, *, clause: str | None = None,
              note: str = "") -> ReviewDecision:
    return ReviewDecision(id=uuid4(), policy_key="kite policy", regulation_key="rules",
                          obligation_key=ROWS[rule].key, rule=rule, decision=decision,
                          clause=clause, note=note, decided_by_name="Ann Officer",
                          decided_at=DECIDED)


def _reviews() -> dict[str, RowReview]:
    """2.1 decided a gap; 2.2 met on a clause of the policy; 2.3's decision reopened."""
    decided = {"2.1": RowReview(obligation_key=ROWS["2.1"].key,
                                decision=_decision("2.1", "gap", note="Nothing says so.")),
               "2.2": RowReview(obligation_key=ROWS["2.2"].key,
                                decision=_decision("2.2", "met", clause="every year")),
               "2.3": RowReview(obligation_key=ROWS["2.3"].key,
                                decision=_decision("2.3", "partly_met", note="Half of it."),
                                reopened=REOPENED)}
    return {review.obligation_key: review for review in decided.values()}


def _audit() -> AuditResult:
    finding = AuditFinding.model_validate({
        "target_doc_id": REG, "target_doc_title": "Rules", "kind": "conflict",
        "severity": "High", "consequence": "It may cost.", "target_quote": "A firm must.",
        "target_clause": "1.1", "suggestion": "Change it.", "confidence_score": 0.9})
    # The chat's own label, which a report must not print over rows nobody proved.
    return AuditResult(mode="policy", overall_status="Major Violations", targets_checked=1,
                       findings=[finding])


def _report(**extra: Any) -> AuditReport:
    return build_report(_audit(), [], title="Audit of Kite", created_at=WHEN,
                        matrix=_matrix(), reviews=_reviews(), **extra)


def test_the_matrix_is_in_review_order_with_each_rows_decision() -> None:
    report = _report()
    assert [line.rule for line in report.matrix] == QUEUE
    lines = {line.rule: line for line in report.matrix}
    assert (lines["1.1"].review, lines["1.1"].priority, lines["1.1"].finding) == (
        "finding", 0.95, "1")
    assert (lines["2.1"].decision, lines["2.1"].decided_by, lines["2.1"].decided_at) == (
        "gap", "Ann Officer", DECIDED)
    # A reopened decision does not stand: no decision, nobody as its reviewer, and the note
    # keeps what it was.
    reopened = lines["2.3"]
    assert (reopened.decision, reopened.reopened, reopened.decided_by) == (None, REOPENED, "")
    assert reopened.note == ("earlier decision: partly met (Ann Officer, 2026-11-29T07:15Z); "
                             "Half of it.")
    progress = report.progress
    assert progress.headline() == "1 finding proven; 1 row to review"
    assert progress.engine_reading() == ("Findings (proven): 1; Rows to review: 3; "
                                         "Likely met (proposed): 1; Not applicable: 1")
    # Findings: the proven one and the one decided a gap; open: only 2.3 is undecided.
    assert progress.progress() == "2 of 6 reviewed; 2 findings; 1 open; 1 reopened"


def test_csv_is_exactly_the_matrix_in_review_order() -> None:
    raw = export(_report(), ExportFormat.CSV).data.decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(raw)))
    assert tuple(rows[0]) == COLUMNS
    assert len(rows) == 1 + len(ROWS)  # a pure table: no summary, no sign-off lines
    cells = {r[0]: dict(zip(COLUMNS, r, strict=True)) for r in rows[1:]}
    assert [r[0] for r in rows[1:]] == QUEUE
    assert [cells[r]["Status"] for r in QUEUE] == [
        "finding", "review", "review", "review", "likely met", "not applicable"]
    assert [cells[r]["Proposed"] for r in QUEUE] == [
        "likely contradicted", "unclear", "likely missing", "unclear", "likely met", "unclear"]
    assert cells["1.1"]["Score"] == "0.95" and cells["3.1"]["Score"] == "0.10"
    assert cells["1.1"]["Reason"] == "reason 1.1" and cells["1.1"]["Finding #"] == "1"
    assert (cells["2.1"]["Decision"], cells["2.1"]["Decided by"], cells["2.1"]["Decided at"],
            cells["2.1"]["Note"]) == ("gap", "Ann Officer", "2026-11-29T07:15Z",
                                      "Nothing says so.")
    # A decision that relied on a clause shows its words, and the clause they are in.
    assert (cells["2.2"]["Decision"], cells["2.2"]["Policy text (verbatim)"],
            cells["2.2"]["Policy clause"]) == ("met", "every year", "4.3")
    assert (cells["2.3"]["Decision"], cells["2.3"]["Decided by"],
            cells["2.3"]["Decided at"]) == (f"reopened: {REOPENED}", "", "")
    assert cells["3.1"]["Decision"] == ""


def test_xlsx_summary_counts_signs_off_and_lists_the_parties_left_out() -> None:
    book = load_workbook(io.BytesIO(export(_report(), ExportFormat.XLSX).data))
    assert book.sheetnames == ["Summary", "Findings", "Matrix", "Not applicable"]
    summary = list(book["Summary"].iter_rows(values_only=True))
    pairs = {row[0]: row[1] for row in summary if row and row[0]}
    assert pairs["Status"] == "1 finding proven; 1 row to review"
    assert str(pairs["Engine's reading"]).startswith("Findings (proven): 1; Rows to review: 3")
    assert pairs["Not applicable"] == "the supervisory authority (12 obligations)"
    assert pairs["Sign-off"] == "2 of 6 reviewed; 2 findings; 1 open; 1 reopened"
    assert (None, SIGN_OFF_LINE) in summary
    everything = " ".join(str(c) for sheet in book for row in sheet.iter_rows(values_only=True)
                          for c in row if c is not None)
    assert "Major Violations" not in everything
    assert list(book["Not applicable"].iter_rows(values_only=True)) == [
        ("Party", "Obligations", "Reason", "Regulation", "Rules (examples)"),
        ("the supervisory authority", 12, "it binds the authority, not a firm", "Rules",
         "9.1, 9.2")]
    matrix = list(book["Matrix"].iter_rows())
    assert tuple(c.value for c in matrix[0]) == COLUMNS
    score = matrix[1][COLUMNS.index("Score")]
    assert (score.value, score.number_format) == (0.95, "0.00")  # a number, sortable


def test_xlsx_without_a_party_left_out_has_no_such_sheet() -> None:
    matrix = _matrix().model_copy(update={"excluded": ()})
    report = build_report(_audit(), [], title="T", created_at=WHEN, matrix=matrix)
    book = load_workbook(io.BytesIO(export(report, ExportFormat.XLSX).data))
    assert book.sheetnames == ["Summary", "Findings", "Matrix"]


def test_docx_ends_in_a_sign_off_and_says_who_was_left_out() -> None:
    document = Document(io.BytesIO(export(_report(), ExportFormat.DOCX).data))
    paragraphs = [p.text for p in document.paragraphs]
    headings = [p.text for p in document.paragraphs
                if p.style is not None and str(p.style.name).startswith("Heading")]
    assert headings[-1] == "Sign-off"
    assert headings.index("Not applicable") < headings.index("Full matrix")
    signing = paragraphs[paragraphs.index("Sign-off") + 1:]
    assert signing == ["2 of 6 reviewed; 2 findings; 1 open; 1 reopened", SIGN_OFF_LINE]
    assert ("the supervisory authority (Rules) — 12 obligations: it binds the authority, "
            "not a firm") in paragraphs
    summary = {row.cells[0].text: row.cells[1].text for row in document.tables[0].rows}
    assert summary["Status"] == "1 finding proven; 1 row to review"
    assert "Major Violations" not in "\n".join(summary.values())
    matrix = document.tables[-1]
    header = [c.text for c in matrix.rows[0].cells]
    assert header[:4] == ["Rule", "Obligation (verbatim)", "Status", "Decision"]
    by_rule = {row.cells[0].text: row for row in matrix.rows[1:]}
    assert by_rule["Rules 2.1"].cells[3].text == (
        "gap\nAnn Officer · 2026-11-29T07:15Z\nNothing says so.")
    assert by_rule["Rules 1.1"].cells[2].text.startswith("finding\nlikely contradicted · 0.95")


def test_a_recorded_sign_off_fills_the_name_and_date_but_never_the_signature() -> None:
    report = _report(signed_off=SignOff(by="Ann Officer", at=WHEN))
    book = load_workbook(io.BytesIO(export(report, ExportFormat.XLSX).data))
    summary = list(book["Summary"].iter_rows(values_only=True))
    assert (None, "Reviewed by: Ann Officer  Date: 2026-11-28  Signature: ____") in summary


class _Thread:
    """The three reads thread_audit_report makes of a conversation store."""

    def __init__(self, matrix: CoverageMatrix) -> None:
        self.matrix = matrix
        self.message = StoredMessage(
            id=uuid4(), role="assistant", content="", created_at=WHEN,
            metadata={"result": {"audit": _audit().model_dump(mode="json")},
                      "resolved": [{"title": "Rules"}, {"title": "Kite Policy"}]})

    async def get(self, tenant_id: UUID, conversation_id: UUID) -> Conversation:
        return Conversation(id=conversation_id, title="Kite", created_at=WHEN)

    async def messages(self, tenant_id: UUID, conversation_id: UUID) -> list[StoredMessage]:
        return [self.message]

    async def audit_matrix(self, tenant_id: UUID, conversation_id: UUID,
                           message_id: UUID) -> CoverageMatrix | None:
        return self.matrix


async def test_the_threads_report_carries_the_reviews_the_caller_reads() -> None:
    thread = _Thread(_matrix())
    store = cast(ConversationStore, thread)
    asked: list[tuple[CoverageMatrix, StoredMessage]] = []

    async def reviews_for(matrix: CoverageMatrix,
                          message: StoredMessage) -> Mapping[str, RowReview]:
        asked.append((matrix, message))
        return _reviews()

    report = await thread_audit_report(store, uuid4(), uuid4(), reviews_for=reviews_for)
    assert asked == [(thread.matrix, thread.message)]
    assert report.progress.reviewed == 2
    assert {line.rule: line.decision for line in report.matrix}["2.1"] == "gap"
    # Without the callable (the route as it is), the same report, no row decided.
    plain = await thread_audit_report(store, uuid4(), uuid4())
    assert [line.rule for line in plain.matrix] == QUEUE
    assert plain.progress.reviewed == 0 and plain.progress.open == 3


@pytest.mark.parametrize("decided_at", [datetime(2026, 11, 29, 7, 15), DECIDED])
def test_decision_times_are_shown_in_utc_to_the_minute(decided_at: datetime) -> None:
    review = RowReview(obligation_key=ROWS["2.1"].key, decision=_decision("2.1", "gap")
                       .model_copy(update={"decided_at": decided_at}))
    report = build_report(_audit(), [], title="T", created_at=WHEN, matrix=_matrix(),
                          reviews={review.obligation_key: review})
    raw = export(report, ExportFormat.CSV).data.decode("utf-8-sig")
    rows = {r[0]: r for r in csv.reader(io.StringIO(raw))}
    assert rows["2.1"][COLUMNS.index("Decided at")] == "2026-11-29T07:15Z"
