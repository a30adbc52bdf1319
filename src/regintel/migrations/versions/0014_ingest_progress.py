"""How far a document's ingestion has got (issue 38): the chunks embedded of its total, and
when its processing started, so the library and `regintel ingest` can show progress and a time
left instead of "Processing…" for minutes. Documents stored before show none until re-ingested.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("documents", sa.Column("chunks_embedded", sa.Integer, nullable=False,
                                         server_default="0"))
    op.add_column("documents", sa.Column("chunks_total", sa.Integer, nullable=False,
                                         server_default="0"))
    op.add_column("documents", sa.Column("processing_started_at",
                                         sa.DateTime(timezone=True)))


def downgrade() -> None:
    for column in ("processing_started_at", "chunks_total", "chunks_embedded"):
        op.drop_column("documents", column)
