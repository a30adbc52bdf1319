"""Where a chunk sits for a reader of a document without real pages (issue 35): its section
path (the headings above it, "PART 3 › Chapter 14 › 14.2 Internal reporting"), the changes of
path at headings inside it (JSON array of [offset in the chunk's text, path]) and the 1-based
lines of the document's text it spans. Chunks stored before have none: their citations name
the clause only.

Revision ID: 0012
Revises: 0009
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0012"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("chunks", sa.Column("section", sa.Text))
    op.add_column("chunks", sa.Column("section_changes", JSONB, nullable=False,
                                      server_default=sa.text("'[]'::jsonb")))
    op.add_column("chunks", sa.Column("line_start", sa.Integer))
    op.add_column("chunks", sa.Column("line_end", sa.Integer))


def downgrade() -> None:
    for column in ("line_end", "line_start", "section_changes", "section"):
        op.drop_column("chunks", column)
