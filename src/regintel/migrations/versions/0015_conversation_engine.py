"""The engine a conversation asks for (issue 37): ``offline``, ``local`` (the embedded model)
or ``cloud`` (the configured model endpoint); NULL, as every conversation before, is the
deployment's default. A column of ``conversations``, so the table's row-level security covers
it as it covers the rest of the row.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

_CHECK = "conversations_engine_check"


def upgrade() -> None:
    op.add_column("conversations", sa.Column("engine", sa.Text))
    op.create_check_constraint(_CHECK, "conversations",
                               "engine IN ('offline', 'local', 'cloud')")


def downgrade() -> None:
    op.drop_constraint(_CHECK, "conversations", type_="check")
    op.drop_column("conversations", "engine")
