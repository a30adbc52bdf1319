"""Run the Alembic migrations programmatically (``regintel migrate``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, create_engine, text

from regintel.adapters.postgres.database import PGVECTOR_AVAILABLE, missing_pgvector, sqlalchemy_url

_SCRIPTS = Path(__file__).resolve().parents[2] / "migrations"
# Any constant works; it only has to be the same for every regintel process.
_MIGRATION_LOCK_KEY = 0x5245_4749_4E54  # "REGINT"


@dataclass(frozen=True)
class MigrationResult:
    before: str | None
    after: str | None

    @property
    def changed(self) -> bool:
        return self.before != self.after


def _config(connection: Connection, *, embedding_dim: int, hnsw_m: int,
            hnsw_ef_construction: int) -> Config:
    config = Config()
    config.set_main_option("script_location", str(_SCRIPTS))
    config.attributes.update(connection=connection, embedding_dim=embedding_dim, hnsw_m=hnsw_m,
                             hnsw_ef_construction=hnsw_ef_construction)
    return config


def head_revision() -> str | None:
    config = Config()
    config.set_main_option("script_location", str(_SCRIPTS))
    return ScriptDirectory.from_config(config).get_current_head()


def migrate(url: str, *, target: str = "head", downgrade: bool = False, embedding_dim: int = 384,
            hnsw_m: int = 16, hnsw_ef_construction: int = 64) -> MigrationResult:
    engine = create_engine(sqlalchemy_url(url))
    try:
        with engine.connect() as conn:
            _require_pgvector(conn)
            conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": _MIGRATION_LOCK_KEY})
            conn.commit()
            try:
                before = MigrationContext.configure(conn).get_current_revision()
                config = _config(conn, embedding_dim=embedding_dim, hnsw_m=hnsw_m,
                                 hnsw_ef_construction=hnsw_ef_construction)
                if downgrade:
                    command.downgrade(config, target)
                else:
                    command.upgrade(config, target)
                conn.commit()
                after = MigrationContext.configure(conn).get_current_revision()
            finally:
                conn.rollback()  # a failed migration leaves the transaction aborted
                conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": _MIGRATION_LOCK_KEY})
                conn.commit()
    finally:
        engine.dispose()
    return MigrationResult(before, after)


def current_revision(url: str) -> str | None:
    engine = create_engine(sqlalchemy_url(url))
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    finally:
        engine.dispose()


def _require_pgvector(conn: Connection) -> None:
    if conn.execute(PGVECTOR_AVAILABLE).scalar_one_or_none() is None:
        raise missing_pgvector()
