"""The audit of a conversation, read back from its stored messages: the latest assistant
message that carries an audit (what the UI shows again after a reload), with the citations
of that message and the coverage matrix kept beside it (the offline engine's; an audit
without one reports its findings and the rules it checked), with the officer's decisions on
the matrix's rows when the caller can read them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any
from uuid import UUID

from regintel.domain.chat import AuditResult, Citation
from regintel.domain.conversations import StoredMessage
from regintel.domain.coverage import CoverageMatrix
from regintel.domain.review import RowReview
from regintel.errors import NotFound
from regintel.ports.conversations import ConversationStore
from regintel.reports.audit_report import AuditReport, build_report

# The decisions on a matrix's rows, keyed by obligation key: the review store knows which
# policy and regulation the audit message is of, this module does not.
ReviewsFor = Callable[[CoverageMatrix, StoredMessage], Awaitable[Mapping[str, RowReview]]]


async def thread_audit_report(conversations: ConversationStore, tenant_id: UUID,
                              conversation_id: UUID,
                              reviews_for: ReviewsFor | None = None) -> AuditReport:
    """The report of the conversation's latest audit; NotFound when the conversation is not
    the tenant's or holds no audit. (The caller checks that the user owns it.) Without
    ``reviews_for``, or an audit without a matrix (no rows to decide on), no row carries a
    decision."""
    conversation = await conversations.get(tenant_id, conversation_id)
    messages = await conversations.messages(tenant_id, conversation_id)
    for message in reversed(messages):
        result: dict[str, Any] = (message.metadata or {}).get("result") or {}
        if message.role != "assistant" or "audit" not in result:
            continue
        audit = AuditResult.model_validate(result["audit"])
        citations = [Citation.model_validate(c)
                     for c in message.metadata.get("citations") or []]
        matrix = await conversations.audit_matrix(tenant_id, conversation_id, message.id)
        reviews = await reviews_for(matrix, message) \
            if matrix is not None and reviews_for is not None else None
        titles = [str(r.get("title", "")) for r in message.metadata.get("resolved") or []]
        regulations = [t for t in titles if _is_regulation(t, audit)]
        policy = next((t for t in titles if t not in regulations), "") \
            if audit.mode == "policy" else ""
        return build_report(
            audit, citations, title=f"Audit report — {conversation.title or 'conversation'}",
            created_at=message.created_at, engine=str(message.metadata.get("engine", "")),
            conversation_title=conversation.title, policy=policy, regulations=regulations,
            matrix=matrix, reviews=reviews)
    raise NotFound(f"conversation {conversation_id} has no audit to export",
                   hint="run an audit in the conversation first")


def _is_regulation(title: str, audit: AuditResult) -> bool:
    """A tagged document audited against: a finding cites it, or a rule checked is its."""
    return bool(title) and (any(f.target_doc_title == title for f in audit.findings)
                            or any(r.startswith(title) for r in audit.rules_checked))
