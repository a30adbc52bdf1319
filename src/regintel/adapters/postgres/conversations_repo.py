"""ConversationStore on Postgres: tenant-bound sessions (RLS) that also filter by tenant."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from sqlalchemy import cast, delete, func, insert, literal, or_, select, update
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.dialects.postgresql import insert as pg_insert

from regintel.adapters.postgres import tables as t
from regintel.adapters.postgres.database import Database
from regintel.domain.chat import EngineChoice
from regintel.domain.conversations import Conversation, Memory, QaEntry, Role, StoredMessage
from regintel.domain.coverage import CoverageMatrix
from regintel.errors import NotFound

_CONVERSATION = (t.conversations.c.id, t.conversations.c.title, t.conversations.c.user_id,
                 t.conversations.c.project_id, t.conversations.c.engine,
                 t.conversations.c.created_at,
                 t.conversations.c.last_message_at)
_MESSAGE = (t.messages.c.id, t.messages.c.role, t.messages.c.content, t.messages.c.metadata,
            t.messages.c.created_at)


def _in_conversation(table: Any, tenant_id: UUID, conversation_id: UUID) -> Any:
    return (table.c.tenant_id == tenant_id) & (table.c.conversation_id == conversation_id)


class PostgresConversationStore:
    def __init__(self, database: Database) -> None:
        self._db = database

    async def create(self, tenant_id: UUID, *, user_id: UUID | None = None, title: str = "",
                     project_id: UUID | None = None, engine: EngineChoice | None = None,
                     conversation_id: UUID | None = None) -> Conversation:
        values: dict[str, Any] = {"tenant_id": tenant_id, "user_id": user_id,
                                  "title": title[:200], "project_id": project_id,
                                  "engine": engine}
        if conversation_id is not None:
            values["id"] = conversation_id
        async with self._db.tenant_session(tenant_id) as s:
            row = (await s.execute(insert(t.conversations).values(**values)
                                   .returning(*_CONVERSATION))).mappings().one()
        return Conversation.model_validate(dict(row))

    async def get(self, tenant_id: UUID, conversation_id: UUID) -> Conversation:
        async with self._db.tenant_session(tenant_id) as s:
            row = (await s.execute(select(*_CONVERSATION).where(
                t.conversations.c.tenant_id == tenant_id,
                t.conversations.c.id == conversation_id))).mappings().first()
        if row is None:
            raise NotFound(f"no conversation {conversation_id}",
                           hint="start a new conversation (omit the thread id)")
        return Conversation.model_validate(dict(row))

    async def list_conversations(self, tenant_id: UUID, *,
                                 user_id: UUID | None = None) -> list[Conversation]:
        query = select(*_CONVERSATION).where(t.conversations.c.tenant_id == tenant_id)
        if user_id is not None:
            query = query.where(t.conversations.c.user_id == user_id)
        query = query.order_by(func.coalesce(t.conversations.c.last_message_at,
                                             t.conversations.c.created_at).desc())
        async with self._db.tenant_session(tenant_id) as s:
            rows = (await s.execute(query)).mappings().all()
        return [Conversation.model_validate(dict(r)) for r in rows]

    async def rename(self, tenant_id: UUID, conversation_id: UUID, title: str) -> None:
        await self._update(tenant_id, conversation_id, title=title[:200])

    async def set_engine(self, tenant_id: UUID, conversation_id: UUID,
                         engine: EngineChoice | None) -> None:
        await self._update(tenant_id, conversation_id, engine=engine)

    async def _update(self, tenant_id: UUID, conversation_id: UUID, **values: Any) -> None:
        async with self._db.tenant_session(tenant_id) as s:
            done = await s.execute(update(t.conversations).where(
                t.conversations.c.tenant_id == tenant_id,
                t.conversations.c.id == conversation_id).values(
                    **values, updated_at=func.now()))
        if done.rowcount == 0:  # type: ignore[attr-defined]
            raise NotFound(f"no conversation {conversation_id}")

    async def delete(self, tenant_id: UUID, conversation_id: UUID) -> None:
        # Messages, context and memory go with it (ON DELETE CASCADE on (tenant_id, id)).
        async with self._db.tenant_session(tenant_id) as s:
            done = await s.execute(delete(t.conversations).where(
                t.conversations.c.tenant_id == tenant_id,
                t.conversations.c.id == conversation_id))
        if done.rowcount == 0:  # type: ignore[attr-defined]
            raise NotFound(f"no conversation {conversation_id}")

    async def add_message(self, tenant_id: UUID, conversation_id: UUID, role: Role,
                          content: str, metadata: dict[str, Any] | None = None) -> UUID:
        async with self._db.tenant_session(tenant_id) as s:
            message_id = (await s.execute(insert(t.messages).values(
                tenant_id=tenant_id, conversation_id=conversation_id, role=role,
                content=content, metadata=metadata or {}).returning(t.messages.c.id))
            ).scalar_one()
            await s.execute(update(t.conversations).where(
                t.conversations.c.tenant_id == tenant_id,
                t.conversations.c.id == conversation_id).values(
                    last_message_at=func.now(), updated_at=func.now()))
        return UUID(str(message_id))

    async def set_response(self, tenant_id: UUID, conversation_id: UUID, message_id: UUID,
                           response: dict[str, Any]) -> None:
        async with self._db.tenant_session(tenant_id) as s:
            await s.execute(update(t.messages).where(
                _in_conversation(t.messages, tenant_id, conversation_id),
                t.messages.c.id == message_id).values(
                    metadata=t.messages.c.metadata.op("||")(
                        cast(literal({"response": response}, JSONB), JSONB))))

    async def messages(self, tenant_id: UUID, conversation_id: UUID) -> list[StoredMessage]:
        async with self._db.tenant_session(tenant_id) as s:
            rows = (await s.execute(select(*_MESSAGE).where(
                _in_conversation(t.messages, tenant_id, conversation_id))
                .order_by(t.messages.c.created_at, t.messages.c.id))).mappings().all()
        return [StoredMessage.model_validate(dict(r)) for r in rows]

    async def save_audit_matrix(self, tenant_id: UUID, conversation_id: UUID, message_id: UUID,
                                matrix: CoverageMatrix) -> None:
        async with self._db.tenant_session(tenant_id) as s:
            await s.execute(insert(t.audit_matrices).values(
                tenant_id=tenant_id, conversation_id=conversation_id, message_id=message_id,
                matrix=matrix.model_dump(mode="json")))

    async def replace_audit_matrix(self, tenant_id: UUID, conversation_id: UUID,
                                   message_id: UUID, matrix: CoverageMatrix) -> None:
        async with self._db.tenant_session(tenant_id) as s:
            done = await s.execute(update(t.audit_matrices).where(
                _in_conversation(t.audit_matrices, tenant_id, conversation_id),
                t.audit_matrices.c.message_id == message_id).values(
                    matrix=matrix.model_dump(mode="json")))
        if done.rowcount == 0:  # type: ignore[attr-defined]
            raise NotFound(f"message {message_id} holds no audit matrix")

    async def audit_matrix(self, tenant_id: UUID, conversation_id: UUID,
                           message_id: UUID) -> CoverageMatrix | None:
        async with self._db.tenant_session(tenant_id) as s:
            raw = (await s.execute(select(t.audit_matrices.c.matrix).where(
                _in_conversation(t.audit_matrices, tenant_id, conversation_id),
                t.audit_matrices.c.message_id == message_id))).scalar_one_or_none()
        return CoverageMatrix.model_validate(raw) if raw is not None else None

    async def get_message(self, tenant_id: UUID, conversation_id: UUID,
                          message_id: UUID) -> StoredMessage:
        async with self._db.tenant_session(tenant_id) as s:
            row = (await s.execute(select(*_MESSAGE).where(
                _in_conversation(t.messages, tenant_id, conversation_id),
                t.messages.c.id == message_id))).mappings().first()
        if row is None:
            raise NotFound(f"no message {message_id} in this conversation")
        return StoredMessage.model_validate(dict(row))

    async def memory(self, tenant_id: UUID, conversation_id: UUID, *, window: int) -> Memory:
        async with self._db.tenant_session(tenant_id) as s:
            recent = (await s.execute(select(*_MESSAGE).where(
                _in_conversation(t.messages, tenant_id, conversation_id))
                .order_by(t.messages.c.created_at.desc(), t.messages.c.id.desc())
                .limit(window))).mappings().all()
            count = (await s.execute(select(func.count()).where(
                _in_conversation(t.messages, tenant_id, conversation_id)))).scalar_one()
            summary = (await s.execute(select(
                t.memory_summaries.c.summary, t.memory_summaries.c.covered_messages).where(
                _in_conversation(t.memory_summaries, tenant_id, conversation_id)))).first()
        return Memory(recent=[StoredMessage.model_validate(dict(r)) for r in reversed(recent)],
                      summary=summary[0] if summary else "",
                      summary_covers=summary[1] if summary else 0, message_count=count)

    async def save_summary(self, tenant_id: UUID, conversation_id: UUID, summary: str,
                           covered_messages: int) -> None:
        statement = pg_insert(t.memory_summaries).values(
            tenant_id=tenant_id, conversation_id=conversation_id, summary=summary,
            covered_messages=covered_messages)
        statement = statement.on_conflict_do_update(
            index_elements=["tenant_id", "conversation_id"],
            set_={"summary": summary, "covered_messages": covered_messages,
                  "updated_at": func.now()})
        async with self._db.tenant_session(tenant_id) as s:
            await s.execute(statement)

    async def add_qa(self, tenant_id: UUID, conversation_id: UUID, *, exchange_id: UUID,
                     question: str, answer_digest: str, topics: Sequence[str],
                     source_ids: Sequence[str], embedding: Sequence[float] | None) -> None:
        async with self._db.tenant_session(tenant_id) as s:
            await s.execute(insert(t.memory_qa).values(
                id=exchange_id, tenant_id=tenant_id, conversation_id=conversation_id,
                question=question, answer_digest=answer_digest, topics=list(topics),
                source_ids=list(source_ids),
                embedding=list(embedding) if embedding is not None else None))

    async def search_qa(self, tenant_id: UUID, conversation_id: UUID, *, topic: str,
                        vector: Sequence[float] | None, k: int = 5) -> list[QaEntry]:
        """Entries whose topics or question mention the words of ``topic``, then the nearest
        by embedding; the two lists are merged, keyword hits first."""
        qa = t.memory_qa
        columns = (qa.c.id.label("exchange_id"), qa.c.question, qa.c.answer_digest,
                   qa.c.topics, qa.c.source_ids, qa.c.created_at)
        words = [w.lower() for w in topic.split() if len(w) > 2][:8]
        found: dict[UUID, QaEntry] = {}
        async with self._db.tenant_session(tenant_id) as s:
            if words:
                text_match = or_(*(func.lower(qa.c.question).contains(w) for w in words),
                                 *(func.array_to_string(qa.c.topics, " ").ilike(f"%{w}%")
                                   for w in words))
                rows = (await s.execute(select(*columns).where(
                    _in_conversation(qa, tenant_id, conversation_id), text_match)
                    .order_by(qa.c.created_at.desc()).limit(k))).mappings().all()
                found.update({r["exchange_id"]: QaEntry.model_validate(dict(r)) for r in rows})
            if vector is not None:
                rows = (await s.execute(select(*columns).where(
                    _in_conversation(qa, tenant_id, conversation_id),
                    qa.c.embedding.is_not(None))
                    .order_by(qa.c.embedding.cosine_distance(list(vector)))
                    .limit(k))).mappings().all()
                for r in rows:
                    found.setdefault(r["exchange_id"], QaEntry.model_validate(dict(r)))
        return list(found.values())[:k]

    async def profile(self, tenant_id: UUID, user_id: UUID) -> dict[str, str]:
        p = t.user_profiles
        async with self._db.tenant_session(tenant_id) as s:
            row = (await s.execute(select(p.c.company, p.c.country, p.c.industry,
                                          p.c.description).where(
                p.c.tenant_id == tenant_id, p.c.user_id == user_id))).mappings().first()
        return {k: v for k, v in dict(row).items() if v} if row else {}

    async def record_usage(self, tenant_id: UUID, *, user_id: UUID | None,
                           conversation_id: UUID | None, action: str, engine: str, model: str,
                           input_tokens: int, output_tokens: int, cost_usd: float) -> None:
        async with self._db.tenant_session(tenant_id) as s:
            await s.execute(insert(t.usage_events).values(
                tenant_id=tenant_id, user_id=user_id, conversation_id=conversation_id,
                action=action, engine=engine, model=model, input_tokens=input_tokens,
                output_tokens=output_tokens, cost_usd=cost_usd))


