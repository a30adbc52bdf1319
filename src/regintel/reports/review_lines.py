"""How the officer's review shows in a report (issue 47): a row's decision as the matrix
prints it, the counts of what the engine proved against what it only proposed, the review's
progress, and the parties whose obligations were left out.

The report never calls a row a violation on the engine's word alone: the headline counts
the findings the engine proved and the rows still waiting for the officer, and everything
else is labelled as a proposal."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Protocol, TypedDict

from pydantic import BaseModel, Field

from regintel.domain.coverage import CoverageMatrix, Proposal, ReviewStatus
from regintel.domain.review import Decision, RowReview

STATUS_LABELS: dict[ReviewStatus, str] = {
    "finding": "finding", "review": "review", "likely_met": "likely met",
    "not_applicable": "not applicable"}
# "likely": a proposal is the engine's reading, never a verdict ("unclear" needs no hedge).
PROPOSAL_LABELS: dict[Proposal, str] = {
    "contradicted": "likely contradicted", "missing": "likely missing", "unclear": "unclear",
    "met": "likely met"}
DECISION_LABELS: dict[Decision, str] = {
    "met": "met", "partly_met": "partly met", "gap": "gap", "not_applicable": "not applicable"}
REOPENED = "reopened: "
# Blanks to fill by hand on the printed page: a report is signed after it is read, so the
# signature is never filled in from the application.
SIGN_OFF_LINE = "Reviewed by: ____  Date: ____  Signature: ____"
# The decisions that leave the rule unmet: with a proven finding nobody overruled, what
# stands against the policy when it is signed off.
_UNMET: frozenset[Decision] = frozenset({"gap", "partly_met"})


class SignOff(BaseModel):
    """A sign-off already recorded: its name and date go on the line; the signature stays
    blank, for the pen."""

    by: str
    at: datetime


class Reviewed(Protocol):
    """What the counts read of a matrix line (audit_report.MatrixLine)."""

    @property
    def review(self) -> ReviewStatus: ...
    @property
    def decision(self) -> Decision | None: ...
    @property
    def reopened(self) -> str | None: ...


class ReviewProgress(BaseModel):
    """The engine's reading of the rows and the officer's progress through them."""

    rows: int = 0
    proven: int = Field(0, description="Rows the engine proved to be findings.")
    to_review: int = Field(0, description="Rows the engine left for the officer.")
    likely_met: int = 0
    not_applicable: int = 0
    reviewed: int = Field(0, description="Rows with a standing decision.")
    open: int = Field(0, description="Rows to review with no standing decision.")
    reopened: int = Field(0, description="Rows whose earlier decision no longer stands.")
    findings: int = Field(0, description="Rows that stand as unmet: decided a gap or partly "
                          "met, or proven and not decided otherwise.")

    def headline(self) -> str:
        return (f"{_count(self.proven, 'finding')} proven; "
                f"{_count(self.open, 'row')} to review")

    def engine_reading(self) -> str:
        return (f"Findings (proven): {self.proven}; Rows to review: {self.to_review}; "
                f"Likely met (proposed): {self.likely_met}; "
                f"Not applicable: {self.not_applicable}")

    def progress(self) -> str:
        return (f"{self.reviewed} of {self.rows} reviewed; {_count(self.findings, 'finding')}; "
                f"{self.open} open; {self.reopened} reopened")


class DecisionFields(TypedDict, total=False):
    """A row's decision, as the MatrixLine fields of that name."""

    decision: Decision
    reopened: str
    decided_by: str
    decided_at: datetime
    note: str


class ExcludedLine(BaseModel):
    """A party whose obligations the matrix left out, as the report lists it."""

    party: str
    regulation: str = ""
    obligations: int = 0
    reason: str = ""
    rules: str = Field("", description="Some of its rules, as examples.")


def tally(lines: Iterable[Reviewed]) -> ReviewProgress:
    counts: dict[str, int] = dict.fromkeys(ReviewProgress.model_fields, 0)
    for line in lines:
        counts["rows"] += 1
        counts[{"finding": "proven", "review": "to_review", "likely_met": "likely_met",
                "not_applicable": "not_applicable"}[line.review]] += 1
        counts["reviewed"] += line.decision is not None
        counts["reopened"] += line.reopened is not None
        counts["open"] += line.review == "review" and line.decision is None
        counts["findings"] += (line.decision in _UNMET
                               or (line.decision is None and line.review == "finding"))
    return ReviewProgress(**counts)


def decision_fields(review: RowReview | None) -> tuple[DecisionFields, str]:
    """A row's decision as MatrixLine fields, and the policy clause it relied on ("" for
    none). A reopened decision no longer stands: it is not shown as the row's decision, nor
    its author as the row's reviewer, but the note keeps what it was so the officer sees
    what changed under it."""
    made = review.decision if review is not None else None
    if review is not None and review.reopened is not None:
        earlier = "" if made is None else (
            f"earlier decision: {DECISION_LABELS[made.decision]} "
            f"({made.decided_by_name or 'unknown'}, {iso_minute(made.decided_at)})"
            + (f"; {made.note}" if made.note else ""))
        return {"reopened": review.reopened, "note": earlier}, ""
    if made is None:
        return {}, ""
    return ({"decision": made.decision, "decided_by": made.decided_by_name,
             "decided_at": made.decided_at, "note": made.note}, made.clause or "")


def decision_label(decision: Decision | None, reopened: str | None) -> str:
    if reopened is not None:
        return REOPENED + reopened
    return DECISION_LABELS[decision] if decision is not None else ""


def iso_minute(when: datetime | None) -> str:
    """A time to the minute in UTC, ISO 8601 ("2026-11-28T12:00Z"); a time stored without a
    zone is already UTC."""
    if when is None:
        return ""
    when = when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
    return when.strftime("%Y-%m-%dT%H:%MZ")


def excluded_lines(matrix: CoverageMatrix) -> list[ExcludedLine]:
    # The party names a document by id only: its title is that of the rows from the same one.
    titles = {r.obligation.document_id: r.obligation.document_title for r in matrix.rows}
    return [ExcludedLine(party=p.actor, regulation=titles.get(p.document_id, ""),
                         obligations=p.obligations, reason=p.reason, rules=", ".join(p.rules))
            for p in matrix.excluded]


def sign_off_lines(progress: ReviewProgress, signed_off: SignOff | None) -> list[str]:
    """The sign-off block: the progress, then the line to sign."""
    line = SIGN_OFF_LINE if signed_off is None else (
        f"Reviewed by: {signed_off.by}  Date: {signed_off.at:%Y-%m-%d}  Signature: ____")
    return [progress.progress(), line]


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
