"""The officer's review of an audit (issue 47): the audit's matrix read back with the decisions
in force on its rows (carried from earlier audits of the same policy where they still stand),
and a new decision checked against the matrix and the policy before it is recorded.

The caller checks that the conversation is the user's; this module keeps to the tenant."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol
from uuid import UUID

from regintel.domain.coverage import CoverageMatrix, CoverageRow
from regintel.domain.review import DecisionInput, DecisionRecord, RowReview, document_key
from regintel.errors import InvalidRequest, NotFound
from regintel.obligations import model_review, review_state
from regintel.ports.conversations import ConversationStore
from regintel.ports.library import ChunkIndex, DocumentStore
from regintel.ports.llm import ChatModel
from regintel.ports.reviews import ReviewStore


@dataclass(frozen=True)
class Regulation:
    """A regulation the audit ran against, with the key its decisions are filed under."""

    id: UUID
    title: str
    key: str


@dataclass(frozen=True)
class AuditReview:
    conversation_id: UUID
    message_id: UUID
    matrix: CoverageMatrix
    policy_key: str
    regulations: tuple[Regulation, ...]
    policy_text: str
    reviews: dict[str, RowReview]

    @property
    def progress(self) -> dict[str, int]:
        return review_state.progress(self.matrix, self.reviews)

    def regulation(self, document_id: UUID) -> Regulation | None:
        return next((r for r in self.regulations if r.id == document_id), None)

    def row(self, obligation_key: str) -> CoverageRow | None:
        return next((r for r in self.matrix.rows if r.key == obligation_key), None)


class Superseded(Protocol):
    """What later versions of a regulation changed (changes/impacting.py implements it)."""

    async def superseded(self, tenant_id: UUID, regulation_id: UUID) -> dict[str, str]:
        """For a regulation a later version replaced: why a decision on each obligation that
        version altered or removed no longer stands, by obligation key (empty when the
        regulation is current)."""
        ...

    async def carried(self, tenant_id: UUID, regulation_id: UUID) -> dict[str, str]:
        """For a version of a regulation: the key each of its obligations had in the version
        before when only renumbered or edited for form there (its decisions stand), by the
        obligation's key now."""
        ...


@dataclass(frozen=True)
class ReviewService:
    conversations: ConversationStore
    documents: DocumentStore
    chunks: ChunkIndex
    reviews: ReviewStore
    versions: Superseded | None = None

    async def review(self, tenant_id: UUID, conversation_id: UUID,
                     message_id: UUID) -> AuditReview:
        """The review of the audit answered by that message; NotFound when it holds none."""
        matrix = await self.conversations.audit_matrix(tenant_id, conversation_id, message_id)
        if matrix is None:
            raise NotFound(f"message {message_id} holds no audit to review",
                           hint="review an audit's answer message")
        return await self._review(tenant_id, conversation_id, message_id, matrix)

    async def latest_review(self, tenant_id: UUID, conversation_id: UUID) -> AuditReview:
        """The review of the conversation's latest audit that kept a matrix (as the reports
        find the latest audit: the last assistant message that carries one)."""
        for message in reversed(await self.conversations.messages(tenant_id, conversation_id)):
            result: dict[str, Any] = (message.metadata or {}).get("result") or {}
            if message.role != "assistant" or "audit" not in result:
                continue
            matrix = await self.conversations.audit_matrix(tenant_id, conversation_id,
                                                           message.id)
            if matrix is not None:
                return await self._review(tenant_id, conversation_id, message.id, matrix)
        raise NotFound(f"conversation {conversation_id} has no audit to review",
                       hint="run an audit in the conversation first")

    async def decide(self, tenant_id: UUID, conversation_id: UUID, message_id: UUID,
                     given: DecisionInput, *, decided_by: UUID | None,
                     decided_by_name: str) -> tuple[AuditReview, CoverageRow]:
        """Records the officer's decision on one row of that audit, and the review after it.
        Refuses a row the audit does not have and a clause that is not the policy's words."""
        review = await self.review(tenant_id, conversation_id, message_id)
        row = review.row(given.obligation_key)
        if row is None:
            raise InvalidRequest(f"this audit has no row {given.obligation_key}",
                                 hint="use the obligation_key of one of the review's rows")
        clause = given.clause.strip() if given.clause and given.clause.strip() else None
        if clause is not None and not review_state.verbatim(clause, review.policy_text):
            where = ("in the policy" if review.matrix.policy_document_id is not None
                     else "among the policy clauses the audit found")
            raise InvalidRequest(f"the clause is not {where}, word for word",
                                 hint="copy the policy's own words (spacing aside), or "
                                 "leave the clause out")
        regulation = review.regulation(row.obligation.document_id)
        assert regulation is not None  # every row's document is among the regulations
        await self.reviews.record(tenant_id, DecisionRecord(
            policy_key=review.policy_key, regulation_key=regulation.key,
            obligation_key=row.key, rule=row.obligation.rule, decision=given.decision,
            clause=clause, note=given.note, context_key=review_state.context_key(row),
            policy_document_id=review.matrix.policy_document_id,
            regulation_document_id=regulation.id, conversation_id=conversation_id,
            message_id=message_id, decided_by=decided_by, decided_by_name=decided_by_name))
        return await self._review(tenant_id, conversation_id, message_id, review.matrix), row

    async def propose(self, tenant_id: UUID, conversation_id: UUID, message_id: UUID,
                      model: ChatModel, *, timeout_s: float, limit: int) -> AuditReview:
        """A model's proposals on the next ``limit`` rows of the queue (to review, then those
        the engine reads as likely met) the officer has not decided and no model has read
        yet, kept with the audit's matrix (model_review.py: labelled as the model's, quotes
        verified, never a decision)."""
        review = await self.review(tenant_id, conversation_id, message_id)
        todo = [row for row in review.matrix.queue if row.review in ("review", "likely_met")
                and row.proposed_by == "engine"
                and not (review.reviews.get(row.key) and review.reviews[row.key].decided)]
        if not todo:
            return review
        read = {r.key: r for r in await model_review.propose(model, todo[:limit],
                                                             timeout_s=timeout_s)}
        matrix = review.matrix.model_copy(update={"rows": tuple(
            read.get(r.key, r) for r in review.matrix.rows)})
        await self.conversations.replace_audit_matrix(tenant_id, conversation_id, message_id,
                                                      matrix)
        return await self._review(tenant_id, conversation_id, message_id, matrix)

    async def standing(self, tenant_id: UUID, matrix: CoverageMatrix) -> dict[str, RowReview]:
        """Each row's decision in force (or reopened), by obligation key: what the reports
        show beside the matrix (reports.audit_thread's ``reviews_for``)."""
        _, _, _, reviews = await self._state(tenant_id, matrix)
        return reviews

    async def _review(self, tenant_id: UUID, conversation_id: UUID, message_id: UUID,
                      matrix: CoverageMatrix) -> AuditReview:
        regulations, policy_key, text, reviews = await self._state(tenant_id, matrix)
        return AuditReview(conversation_id=conversation_id, message_id=message_id,
                           matrix=matrix, policy_key=policy_key,
                           regulations=tuple(regulations), policy_text=text, reviews=reviews)

    async def _state(self, tenant_id: UUID, matrix: CoverageMatrix
                     ) -> tuple[list[Regulation], str, str, dict[str, RowReview]]:
        regulations = await self._regulations(tenant_id, matrix)
        policy_key = document_key(matrix.policy_title)
        if matrix.policy_document_id is not None:
            text = review_state.policy_text(
                await self.chunks.document_chunks(tenant_id, matrix.policy_document_id))
        else:
            text = review_state.quotes_text(matrix)
        decisions = await self.reviews.latest(tenant_id, policy_key,
                                              sorted({r.key for r in regulations}))
        superseded: dict[str, str] = {}
        carried: dict[str, str] = {}
        if self.versions is not None:
            for regulation in regulations:
                superseded |= await self.versions.superseded(tenant_id, regulation.id)
                carried |= await self.versions.carried(tenant_id, regulation.id)
        reviews = review_state.row_reviews(matrix, decisions,
                                           {r.id: r.key for r in regulations}, text,
                                           superseded, carried)
        return regulations, policy_key, text, reviews

    async def _regulations(self, tenant_id: UUID, matrix: CoverageMatrix) -> list[Regulation]:
        """The matrix's regulations with their titles now; a regulation deleted since keeps
        the title its rows were read under."""
        ids = list(dict.fromkeys([*matrix.regulation_ids,
                                  *(r.obligation.document_id for r in matrix.rows)]))
        found: list[Regulation] = []
        for document_id in ids:
            try:
                title = (await self.documents.get(tenant_id, document_id)).title
            except NotFound:
                title = next((r.obligation.document_title for r in matrix.rows
                              if r.obligation.document_id == document_id), "")
            found.append(Regulation(id=document_id, title=title, key=document_key(title)))
        return found
