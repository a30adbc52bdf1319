"""ConversationContextStore on the ``conversation_context`` table (migration 0001).

One row per ``(tenant_id, conversation_id)``; the row goes with its conversation (the foreign
key on ``(tenant_id, conversation_id)`` cascades on delete), and ``purge_inactive`` removes
the contexts of conversations idle for longer than the retention period. Connection failures
surface as ``DependencyUnavailable`` so the engine can apply the spec's failure rules."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta

from sqlalchemy import and_, delete, func, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.exc import DBAPIError, IntegrityError, InterfaceError, OperationalError

from regintel.adapters.postgres import tables as t
from regintel.adapters.postgres.database import Database
from regintel.domain.concepts import ConversationContext, ConversationIdentity
from regintel.errors import DependencyUnavailable, NotFound

_CTX = t.conversation_context


@asynccontextmanager
async def _translated() -> AsyncIterator[None]:
    try:
        yield
    except IntegrityError as exc:  # the conversation does not exist (or is another tenant's)
        raise NotFound("no such conversation for this context") from exc
    except (OperationalError, InterfaceError, OSError) as exc:
        raise DependencyUnavailable("the context store is unreachable") from exc
    except DBAPIError as exc:
        if exc.connection_invalidated:
            raise DependencyUnavailable("the context store is unreachable") from exc
        raise


class PostgresConversationContextStore:
    def __init__(self, database: Database) -> None:
        self._db = database

    async def load(self, identity: ConversationIdentity) -> ConversationContext | None:
        async with _translated(), self._db.tenant_session(identity.tenant_id) as s:
            row = (await s.execute(select(_CTX.c.context_json).where(
                _CTX.c.tenant_id == identity.tenant_id,
                _CTX.c.conversation_id == identity.conversation_id))).first()
        return ConversationContext.model_validate(row[0]) if row else None

    async def save(self, identity: ConversationIdentity, ctx: ConversationContext) -> None:
        body = ctx.model_dump(mode="json")
        statement = pg_insert(_CTX).values(
            tenant_id=identity.tenant_id, conversation_id=identity.conversation_id,
            context_json=body)
        statement = statement.on_conflict_do_update(
            index_elements=["tenant_id", "conversation_id"],
            set_={"context_json": body, "updated_at": func.now()})
        async with _translated(), self._db.tenant_session(identity.tenant_id) as s:
            await s.execute(statement)

    async def purge_inactive(self, *, older_than_days: int) -> int:
        """Contexts neither saved nor talked in for ``older_than_days``, across all tenants
        (a maintenance job, hence the system session)."""
        cutoff = datetime.now(UTC) - timedelta(days=older_than_days)
        conv = t.conversations
        active = select(conv.c.id).where(
            and_(conv.c.tenant_id == _CTX.c.tenant_id, conv.c.id == _CTX.c.conversation_id,
                 func.coalesce(conv.c.last_message_at, conv.c.created_at) >= cutoff))
        async with _translated(), self._db.system_session() as s:
            done = await s.execute(delete(_CTX).where(_CTX.c.updated_at < cutoff,
                                                      ~active.exists()))
        return int(done.rowcount)  # type: ignore[attr-defined]
