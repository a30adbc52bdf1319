"""The officer's review of an audit (issue 47): the audit's rows in review order with the
decisions in force, and recording a decision on a row. Reviews belong to the conversation's
owner, like the conversation: another user's or tenant's is not found."""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Query, status

from regintel.api.deps import AccountsDep, ContainerDep, PrincipalDep
from regintel.api.routes.conversations import owned
from regintel.api.schemas.reviews import (
    CandidatePublic,
    DecisionCreate,
    DecisionRecorded,
    FactDifferencePublic,
    ItemPublic,
    RegulationRef,
    ReviewProgress,
    ReviewPublic,
    ReviewRowPublic,
)
from regintel.container import Container
from regintel.domain.chat import EngineChoice
from regintel.domain.coverage import CoverageRow
from regintel.domain.review import RowReview
from regintel.errors import InvalidRequest
from regintel.obligations.reviewing import AuditReview

router = APIRouter(prefix="/api", tags=["reviews"])
_PROBLEMS: dict[int | str, dict[str, object]] = {
    404: {"description": "No such conversation for this user, or no audit in it"}}
_DECIDE_PROBLEMS: dict[int | str, dict[str, object]] = {
    **_PROBLEMS,
    400: {"description": "The audit has no such row, or the clause is not the policy's "
          "words"}}
PART_LEVELS = 2  # how much of a section path places a row: "Part 3 › Chapter 8"


def part(section: str | None) -> str:
    return " › ".join(p.strip() for p in (section or "").split("›")[:PART_LEVELS] if p.strip())


def row_public(review: AuditReview, row: CoverageRow) -> ReviewRowPublic:
    regulation = review.regulation(row.obligation.document_id)
    standing = review.reviews.get(row.key) or RowReview(obligation_key=row.key)
    o = row.obligation
    return ReviewRowPublic(
        obligation_key=row.key, rule=o.rule, regulation_id=o.document_id,
        regulation_title=regulation.title if regulation else o.document_title,
        part=part(o.section), obligation=o.text,
        items=[ItemPublic(label=i.label, text=i.text) for i in o.items], actor=o.actor,
        strength=o.strength, review=row.review, proposed=row.proposed, priority=row.priority,
        reason=row.reason, proposed_by=row.proposed_by, status=row.status,
        severity=row.severity, score=row.score,
        candidates=[CandidatePublic(quote=q.quote, clause=q.clause, section=q.section,
                                    page=q.page, score=q.score, chunk_id=q.chunk_id,
                                    document_id=q.document_id) for q in row.policy_quotes],
        differing_facts=[FactDifferencePublic(kind=f.kind, policy=f.policy, rule=f.rule)
                         for f in row.differing_facts],
        missing_items=list(row.missing_items), fix=row.fix,
        decision=standing.decision, reopened=standing.reopened)


def review_public(review: AuditReview, proposer: str | None = None) -> ReviewPublic:
    matrix = review.matrix
    return ReviewPublic(
        proposer=proposer,
        conversation_id=review.conversation_id, message_id=review.message_id,
        policy_title=matrix.policy_title,
        regulations=[RegulationRef(id=r.id, title=r.title) for r in review.regulations],
        progress=ReviewProgress(**review.progress),
        rows=[row_public(review, row) for row in matrix.queue],
        excluded=list(matrix.excluded), scope=list(matrix.scope))


@router.get("/conversations/{conversation_id}/review", response_model=ReviewPublic,
            operation_id="read_latest_audit_review", responses=_PROBLEMS)
async def read_latest_review(conversation_id: UUID, principal: PrincipalDep,
                             container: ContainerDep) -> ReviewPublic:
    """The review of the conversation's latest audit: its rows in review order, each with
    the decision in force (carried from an earlier audit of the same policy while what it
    rested on is unchanged)."""
    conversation = await owned(container, principal, conversation_id)
    return review_public(await container.review.latest_review(principal.tenant_id,
                                                                 conversation_id),
                         _proposer(container, conversation.engine))


@router.get("/conversations/{conversation_id}/messages/{message_id}/review",
            response_model=ReviewPublic, operation_id="read_audit_review",
            responses=_PROBLEMS)
async def read_review(conversation_id: UUID, message_id: UUID, principal: PrincipalDep,
                      container: ContainerDep) -> ReviewPublic:
    """The review of the audit answered by that message."""
    conversation = await owned(container, principal, conversation_id)
    return review_public(await container.review.review(principal.tenant_id,
                                                          conversation_id, message_id),
                         _proposer(container, conversation.engine))


@router.post("/conversations/{conversation_id}/messages/{message_id}/review",
             response_model=DecisionRecorded, status_code=status.HTTP_201_CREATED,
             operation_id="record_review_decision", responses=_DECIDE_PROBLEMS)
async def record_decision(conversation_id: UUID, message_id: UUID, body: DecisionCreate,
                          principal: PrincipalDep, container: ContainerDep,
                          accounts: AccountsDep) -> DecisionRecorded:
    """Records the caller's decision on one row of that audit. It supersedes the row's
    earlier decision (which stays in the trail) and carries into later audits of the same
    policy. A clause must be the policy's own words."""
    await owned(container, principal, conversation_id)
    me = await accounts.me(principal)
    review, row = await container.review.decide(
        principal.tenant_id, conversation_id, message_id,
        body, decided_by=principal.user_id,
        decided_by_name=me.display_name or me.email)
    return DecisionRecorded(row=row_public(review, row),
                            progress=ReviewProgress(**review.progress))


MAX_PROPOSED = 20  # rows a model reads per request: a local model takes seconds a row


@router.post("/conversations/{conversation_id}/messages/{message_id}/review/proposals",
             response_model=ReviewPublic, operation_id="propose_review_statuses",
             responses={**_PROBLEMS, 400: {"description": "The conversation's engine is the "
                                                  "offline one: no model to propose"}})
async def propose_statuses(conversation_id: UUID, message_id: UUID, principal: PrincipalDep,
                           container: ContainerDep,
                           limit: Annotated[int, Query(ge=1, le=MAX_PROPOSED)] = 10
                           ) -> ReviewPublic:
    """The conversation's model proposes a status for the next ``limit`` undecided rows of the
    queue (in batches), each labelled as the model's, its quote verified against the
    candidate it names; the officer still decides every row."""
    conversation = await owned(container, principal, conversation_id)
    found = await container.review_model(principal.tenant_id, conversation.engine)
    if found is None:
        raise InvalidRequest("this conversation answers with the offline engine, which has no "
                             "model to propose statuses",
                             hint="choose a model engine for the conversation")
    model, timeout_s = found
    return review_public(await container.review.propose(
        principal.tenant_id, conversation_id, message_id, model, timeout_s=timeout_s,
        limit=limit), _proposer(container, conversation.engine))


def _proposer(container: Container, engine: EngineChoice | None) -> str | None:
    """The conversation's model engine, by name, unless it answers offline (read from what
    the deployment offers: no model is started to say so)."""
    choice = engine if engine is not None and any(
        e.id is engine for e in container.engines()) else container.default_engine
    if choice is EngineChoice.OFFLINE:
        return None
    offered = next((e for e in container.engines() if e.id is choice), None)
    return offered.model if offered is not None and offered.model else choice.value
