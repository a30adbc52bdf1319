"""The officer's review of an audit (issue 47): a decision on each row of the coverage matrix,
kept as an append-only trail in Postgres (the latest decision on a row stands), and carried
into the next audit of the same policy against the same regulation.

Decisions are keyed by ``policy_key`` × ``regulation_key`` × ``obligation_key``: the policy's
and the regulation's titles, normalised (a re-uploaded policy with the same title is the next
version of it until documents carry explicit versions), and the obligation's rule and words
(domain.coverage.obligation_key). A carried decision reopens when what it rested on changed:
the clause the officer relied on is no longer verbatim in the policy, or, for a decision that
relied on none, the policy's closest clauses differ from those the officer saw."""

from __future__ import annotations

from datetime import datetime
from typing import Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

Decision = Literal["met", "partly_met", "gap", "not_applicable"]
DECISIONS: tuple[Decision, ...] = ("met", "partly_met", "gap", "not_applicable")
MAX_NOTE_CHARS = 2000


def document_key(title: str) -> str:
    """A document as decisions know it across uploads: its title, case and spacing aside."""
    return " ".join(title.lower().split())[:300]


class DecisionInput(BaseModel):
    """What the officer records on one row."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    obligation_key: str = Field(min_length=8, max_length=64)
    decision: Decision
    clause: str | None = Field(None, max_length=2000, description="For 'met' or 'partly "
                               "met': the policy's words that meet it, verbatim.")
    note: str = Field("", max_length=MAX_NOTE_CHARS)


class ReviewDecision(BaseModel):
    """A decision as stored: who decided what on which row, when, and what it rested on."""

    model_config = ConfigDict(frozen=True)

    id: UUID
    policy_key: str
    regulation_key: str
    obligation_key: str
    rule: str | None = None
    decision: Decision
    clause: str | None = None
    note: str = ""
    context_key: str = Field("", description="The policy's closest clauses when decided.")
    policy_document_id: UUID | None = None
    regulation_document_id: UUID | None = None
    decided_by: UUID | None = None
    decided_by_name: str = ""
    decided_at: datetime
    conversation_id: UUID | None = Field(None, description="The audit it was decided in.")
    message_id: UUID | None = None


class DecisionRecord(BaseModel):
    """A decision to append to the trail: a ReviewDecision before the store gives it its id
    and time."""

    model_config = ConfigDict(frozen=True)

    policy_key: str
    regulation_key: str
    obligation_key: str
    rule: str | None = None
    decision: Decision
    clause: str | None = None
    note: str = ""
    context_key: str = ""
    policy_document_id: UUID | None = None
    regulation_document_id: UUID | None = None
    conversation_id: UUID | None = None
    message_id: UUID | None = None
    decided_by: UUID | None = None
    decided_by_name: str = ""


class RowReview(BaseModel):
    """A row's decision as the review shows it: the standing decision, or a carried one that
    reopened (with why)."""

    model_config = ConfigDict(frozen=True)

    obligation_key: str
    decision: ReviewDecision | None = None
    reopened: str | None = Field(None, description="Why an earlier decision no longer "
                                 "stands: what changed since it was made.")

    @property
    def decided(self) -> bool:
        return self.decision is not None and self.reopened is None
