"""An audit's review as the API returns it (issue 47): the rows in review order, each with the
engine's proposal, the policy's candidate clauses and the officer's decision in force."""

from __future__ import annotations

from uuid import UUID

from pydantic import BaseModel, Field

from regintel.api.schemas.common import RequestBody
from regintel.domain.chat import Severity
from regintel.domain.coverage import (
    CoverageStatus,
    ExcludedParty,
    FactKind,
    Proposal,
    ReviewStatus,
    ScopePart,
    Strength,
)
from regintel.domain.review import DecisionInput, ReviewDecision


class DecisionCreate(RequestBody, DecisionInput):
    """The officer's decision on one row (NUL characters and unknown fields refused)."""


class RegulationRef(BaseModel):
    id: UUID
    title: str


class ReviewProgress(BaseModel):
    total: int = Field(description="Rows to decide: all but those the engine reads as not "
                       "applying.")
    decided: int = Field(description="Rows with a decision in force.")
    findings: int = Field(description="Rows decided as a gap or partly met.")
    open: int = Field(description="Rows still to decide.")
    reopened: int = Field(description="Open rows whose earlier decision no longer stands.")


class ItemPublic(BaseModel):
    label: str
    text: str


class CandidatePublic(BaseModel):
    """A policy clause the engine found for the row, verbatim."""

    quote: str
    clause: str | None = None
    section: str | None = None
    page: int | None = None
    score: float
    chunk_id: UUID
    document_id: UUID


class FactDifferencePublic(BaseModel):
    kind: FactKind
    policy: str
    rule: str


class ReviewRowPublic(BaseModel):
    obligation_key: str = Field(description="What a decision on this row is keyed by.")
    rule: str | None = None
    regulation_id: UUID
    regulation_title: str
    part: str = Field(description="The first two levels of the obligation's section path.")
    obligation: str = Field(description="The obligation sentence, verbatim.")
    items: list[ItemPublic]
    actor: str | None = None
    strength: Strength
    review: ReviewStatus
    proposed: Proposal
    priority: float
    reason: str
    proposed_by: str
    status: CoverageStatus
    severity: Severity | None = None
    score: float
    candidates: list[CandidatePublic]
    differing_facts: list[FactDifferencePublic]
    missing_items: list[str]
    fix: str
    decision: ReviewDecision | None = Field(None, description="The decision in force, or the "
                                            "earlier one that reopened.")
    reopened: str | None = Field(None, description="Why the earlier decision no longer stands.")


class ReviewPublic(BaseModel):
    conversation_id: UUID
    message_id: UUID
    policy_title: str
    regulations: list[RegulationRef]
    progress: ReviewProgress
    rows: list[ReviewRowPublic] = Field(description="In review order.")
    excluded: list[ExcludedParty]
    scope: list[ScopePart]
    proposer: str | None = Field(None, description="The conversation's model engine, which "
                                 "can propose statuses on the queue (POST …/review/"
                                 "proposals); None when the conversation answers offline.")


class DecisionRecorded(BaseModel):
    row: ReviewRowPublic
    progress: ReviewProgress
