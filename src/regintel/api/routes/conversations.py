"""Conversations: list, create, rename, delete (with context, memory and checkpoints),
messages, usage and the export of their latest audit. Conversations are personal: other
members of the tenant get 404 too."""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Query, Response, status
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

from regintel.api.accounts.store import Principal
from regintel.api.deps import ContainerDep, PrincipalDep
from regintel.api.schemas.conversations import (
    ConversationCreate,
    ConversationPublic,
    ConversationsPublic,
    ConversationUpdate,
    MessagePublic,
    MessagesPublic,
    UsageTotals,
)
from regintel.api.usage import conversation_usage
from regintel.container import Container
from regintel.domain.conversations import Conversation
from regintel.errors import NotFound
from regintel.reports.audit_thread import thread_audit_report
from regintel.reports.export import MEDIA_TYPES, ExportFormat, export

router = APIRouter(prefix="/api", tags=["conversations"])
_PROBLEMS: dict[int | str, dict[str, object]] = {
    401: {"description": "Not signed in"},
    404: {"description": "No such conversation for this user"},
}
_ENGINE_PROBLEM: dict[int | str, dict[str, object]] = {
    400: {"description": "An engine this deployment does not offer"}}
_CREATE_PROBLEMS: dict[int | str, dict[str, object]] = {
    **_PROBLEMS, **_ENGINE_PROBLEM, 404: {"description": "No such project in this organisation"},
}


async def owned(container: Container, principal: Principal,
                conversation_id: UUID) -> Conversation:
    """The caller's own conversation, or NotFound (never says that someone else has it)."""
    conversation = await container.conversations.get(principal.tenant_id, conversation_id)
    if conversation.user_id != principal.user_id:
        raise NotFound(f"no conversation {conversation_id}")
    return conversation


def thread_key(tenant_id: UUID, conversation_id: UUID) -> str:
    """The checkpointer's thread id, as ChatService builds it."""
    return f"{tenant_id}:{conversation_id}"


def _public(conversation: Conversation) -> ConversationPublic:
    return ConversationPublic.model_validate(conversation.model_dump())


@router.get("/conversations", response_model=ConversationsPublic,
            operation_id="list_conversations", responses=_PROBLEMS)
async def list_conversations(principal: PrincipalDep,
                             container: ContainerDep) -> ConversationsPublic:
    """The caller's conversations, most recent activity first."""
    found = await container.conversations.list_conversations(principal.tenant_id,
                                                             user_id=principal.user_id)
    return ConversationsPublic(data=[_public(c) for c in found], count=len(found))


@router.post("/conversations", response_model=ConversationPublic,
             status_code=status.HTTP_201_CREATED, operation_id="create_conversation",
             responses=_CREATE_PROBLEMS)
async def create_conversation(body: ConversationCreate, principal: PrincipalDep,
                              container: ContainerDep) -> ConversationPublic:
    """An empty conversation; its first message gives it a title unless one is set here."""
    container.check_engine(body.engine)
    if body.project_id is not None:
        # The chat checks the project of each turn too; storing a foreign id is refused here
        # all the same, as any other tenant's id is: it does not exist for this caller.
        await container.projects.project(principal.tenant_id, body.project_id)
    created = await container.conversations.create(
        principal.tenant_id, user_id=principal.user_id, title=body.title,
        project_id=body.project_id, engine=body.engine)
    return _public(created)


@router.get("/conversations/{conversation_id}", response_model=ConversationPublic,
            operation_id="read_conversation", responses=_PROBLEMS)
async def read_conversation(conversation_id: UUID, principal: PrincipalDep,
                            container: ContainerDep) -> ConversationPublic:
    return _public(await owned(container, principal, conversation_id))


@router.patch("/conversations/{conversation_id}", response_model=ConversationPublic,
              operation_id="rename_conversation", responses={**_PROBLEMS, **_ENGINE_PROBLEM})
async def rename_conversation(conversation_id: UUID, body: ConversationUpdate,
                              principal: PrincipalDep,
                              container: ContainerDep) -> ConversationPublic:
    """Renames the conversation, or moves its next turns to another engine (the operation
    keeps its first name, which clients know it by)."""
    await owned(container, principal, conversation_id)
    if "engine" in body.model_fields_set:
        container.check_engine(body.engine)
        await container.conversations.set_engine(principal.tenant_id, conversation_id,
                                                 body.engine)
    if body.title is not None:
        await container.conversations.rename(principal.tenant_id, conversation_id, body.title)
    return _public(await owned(container, principal, conversation_id))


@router.delete("/conversations/{conversation_id}", status_code=status.HTTP_204_NO_CONTENT,
               operation_id="delete_conversation", responses=_PROBLEMS)
async def delete_conversation(conversation_id: UUID, principal: PrincipalDep,
                              container: ContainerDep) -> None:
    """The conversation with its messages, context and memory, and the chat graph's
    checkpoints of the thread (which hold the turn inputs)."""
    await owned(container, principal, conversation_id)
    await container.conversations.delete(principal.tenant_id, conversation_id)
    async with AsyncPostgresSaver.from_conn_string(container.database_url) as saver:
        await saver.adelete_thread(thread_key(principal.tenant_id, conversation_id))


@router.get("/conversations/{conversation_id}/messages", response_model=MessagesPublic,
            operation_id="list_messages", responses=_PROBLEMS)
async def list_messages(conversation_id: UUID, principal: PrincipalDep,
                        container: ContainerDep) -> MessagesPublic:
    await owned(container, principal, conversation_id)
    stored = await container.conversations.messages(principal.tenant_id, conversation_id)
    data = [MessagePublic.model_validate(m.model_dump()) for m in stored]
    return MessagesPublic(data=data, count=len(data))


@router.get("/conversations/{conversation_id}/usage", response_model=UsageTotals,
            operation_id="read_conversation_usage", tags=["usage"], responses=_PROBLEMS)
async def read_conversation_usage(conversation_id: UUID, principal: PrincipalDep,
                                  container: ContainerDep) -> UsageTotals:
    await owned(container, principal, conversation_id)
    return await conversation_usage(container.database, principal.tenant_id, conversation_id)


_EXPORT_RESPONSES: dict[int | str, dict[str, object]] = {
    200: {"description": "The report file (an attachment).",
          "content": {media: {"schema": {"type": "string", "format": "binary"}}
                      for media in MEDIA_TYPES.values()}},
    401: {"description": "Not signed in"},
    404: {"description": "No such conversation for this user, or it holds no audit"},
}


_FORMATS = ("xlsx: summary, findings and matrix sheets; csv: the matrix; docx: a report with "
            "the summary, the findings by severity and the full matrix with citations.")


@router.get("/conversations/{conversation_id}/audit/export", operation_id="export_audit",
            response_class=Response, responses=_EXPORT_RESPONSES)
async def export_audit(conversation_id: UUID, principal: PrincipalDep,
                       container: ContainerDep,
                       fmt: Annotated[ExportFormat, Query(alias="format", description=_FORMATS)]
                       = ExportFormat.XLSX) -> Response:
    """The conversation's latest audit as a file a compliance officer can hand on."""
    await owned(container, principal, conversation_id)
    review = container.review
    report = await thread_audit_report(
        container.conversations, principal.tenant_id, conversation_id,
        reviews_for=lambda matrix, _: review.standing(principal.tenant_id, matrix))
    exported = export(report, fmt)
    return Response(exported.data, media_type=exported.media_type, headers={
        "Content-Disposition": f'attachment; filename="{exported.filename}"',
        "Cache-Control": "no-store"})
