"""LangGraph checkpointer tables (langgraph-checkpoint-postgres), applied here so one
``regintel migrate`` owns the whole schema. The statements are the library's own, recorded in its
``checkpoint_migrations`` table exactly as ``AsyncPostgresSaver.setup()`` would, so a later
``setup()`` after a library upgrade applies only what is new.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-21
"""

from __future__ import annotations

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    from langgraph.checkpoint.postgres.base import BasePostgresSaver

    for version, statement in enumerate(BasePostgresSaver.MIGRATIONS):
        # CONCURRENTLY cannot run inside a migration's transaction; the tables are new and empty.
        op.execute(statement.replace("CONCURRENTLY", ""))
        op.execute(f"INSERT INTO checkpoint_migrations (v) VALUES ({int(version)})")


def downgrade() -> None:
    for table in ("checkpoint_writes", "checkpoint_blobs", "checkpoints", "checkpoint_migrations"):
        op.execute(f"DROP TABLE IF EXISTS {table}")
