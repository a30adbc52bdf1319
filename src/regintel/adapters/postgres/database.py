"""The async SQLAlchemy engine and the two kinds of session the product uses.

``tenant_session`` is the only session request code gets: it switches to the non-privileged
``regintel_app`` role and binds ``regintel.tenant_id``, so row-level security filters every
statement even if a repository forgot its own ``WHERE tenant_id`` (the first wall).
``system_session`` keeps the connecting role and is for migrations, auth look-ups and jobs that
must see across tenants on purpose.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from uuid import UUID

from sqlalchemy import text
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from regintel.errors import ConfigurationError, DependencyUnavailable

APP_ROLE = "regintel_app"
PGVECTOR_AVAILABLE = text(
    "SELECT default_version FROM pg_available_extensions WHERE name = 'vector'"
)


def missing_pgvector() -> ConfigurationError:
    return ConfigurationError(
        "the database server does not have the pgvector extension ('vector')",
        hint="install pgvector on that server (or use a managed Postgres that offers it), "
        "or unset REGINTEL_DATABASE_URL to use the embedded server",
    )


def sqlalchemy_url(url: str) -> str:
    """Any libpq-style URL → the psycopg3 dialect SQLAlchemy needs."""
    for prefix in ("postgresql+psycopg://", "postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    raise ConfigurationError(f"not a Postgres URL: {url.split('://', 1)[0]}://…",
                             hint="REGINTEL_DATABASE_URL must start with postgresql://")


def libpq_url(url: str) -> str:
    """The same URL for plain psycopg / procrastinate / the LangGraph checkpointer."""
    return "postgresql://" + sqlalchemy_url(url)[len("postgresql+psycopg://"):]


class Database:
    def __init__(self, url: str, *, pool_size: int = 10, connect_timeout_s: float = 10.0) -> None:
        self.url = libpq_url(url)
        self.engine: AsyncEngine = create_async_engine(
            sqlalchemy_url(url),
            pool_size=pool_size,
            max_overflow=pool_size,
            pool_pre_ping=True,
            connect_args={"connect_timeout": int(connect_timeout_s)},
        )
        self._sessions = async_sessionmaker(self.engine, expire_on_commit=False)

    @asynccontextmanager
    async def tenant_session(self, tenant_id: UUID) -> AsyncIterator[AsyncSession]:
        """A transaction bound to one tenant; commits on success, rolls back on error."""
        async with self._sessions() as session, session.begin():
            await session.execute(text(f"SET LOCAL ROLE {APP_ROLE}"))
            await session.execute(text("SELECT set_config('regintel.tenant_id', :t, true)"),
                                  {"t": str(tenant_id)})
            yield session

    @asynccontextmanager
    async def system_session(self) -> AsyncIterator[AsyncSession]:
        async with self._sessions() as session, session.begin():
            yield session

    async def ping(self) -> None:
        try:
            async with self.engine.connect() as conn:
                await conn.execute(text("SELECT 1"))
        except (OperationalError, DBAPIError, OSError) as exc:
            raise DependencyUnavailable("the database is unreachable") from exc

    async def ensure_pgvector(self) -> None:
        """An external server must offer pgvector; say so plainly instead of failing later."""
        async with self.engine.connect() as conn:
            if (await conn.execute(PGVECTOR_AVAILABLE)).scalar_one_or_none() is None:
                raise missing_pgvector()

    async def dispose(self) -> None:
        await self.engine.dispose()
