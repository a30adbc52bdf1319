"""The SQLAlchemy tables repositories use must describe exactly what the migrations built."""

from __future__ import annotations

from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine

# The ontology and throttle tables live beside their repositories; importing registers them.
from regintel.adapters.postgres import ontology_tables, throttle_repo  # noqa: F401
from regintel.adapters.postgres.database import sqlalchemy_url
from regintel.adapters.postgres.tables import metadata

# Tables owned by libraries (queue, checkpointer, alembic) are not in our metadata.
_FOREIGN_PREFIXES = ("procrastinate_", "checkpoint", "alembic_version")


def _ours(diff: Any) -> bool:
    entry = diff[0] if isinstance(diff, list) else diff
    for part in entry:
        name = getattr(part, "name", None)
        table = getattr(part, "table", None)
        for candidate in (name, getattr(table, "name", None)):
            if isinstance(candidate, str) and candidate.startswith(_FOREIGN_PREFIXES):
                return False
    return True


def test_tables_module_matches_migrated_schema(fresh_db_url: str) -> None:
    engine = create_engine(sqlalchemy_url(fresh_db_url))
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            diffs = [d for d in compare_metadata(context, metadata) if _ours(d)]
    finally:
        engine.dispose()
    assert diffs == []
