"""Throttles shared by every API replica (issue 34): sign-in and sign-up attempt counters, and
the chat/upload token buckets that used to live in each process's memory.

``auth_throttles`` counts failures per subject (an account or a client address) in a fixed
window and, past the limit, blocks the subject until ``blocked_until`` with a back-off that
doubles on each repeated block (``strikes``). A login attempt has no tenant yet, so these rows
are not tenant-owned and carry no row-level security; they name no one either: the subject is an
HMAC-SHA256 of the lower-cased e-mail (or of the address) keyed with the app secret.

``rate_buckets`` holds one token bucket per (bucket, user); refill and spend happen in a single
``INSERT ... ON CONFLICT DO UPDATE`` so concurrent replicas cannot both spend the last token.

Both tables are pruned by the application on write (rows idle past their horizon), so they stay
as small as the set of recently active subjects; ``updated_at`` is indexed for that.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "auth_throttles",
        sa.Column("scope", sa.Text, nullable=False),
        sa.Column("subject", sa.Text, nullable=False),
        sa.Column("failures", sa.Integer, nullable=False, server_default="0"),
        sa.Column("window_start", sa.DateTime(timezone=True), nullable=False,
                  server_default=sa.func.now()),
        sa.Column("strikes", sa.Integer, nullable=False, server_default="0"),
        sa.Column("blocked_until", sa.DateTime(timezone=True)),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False,
                  server_default=sa.func.now()),
        sa.PrimaryKeyConstraint("scope", "subject", name="auth_throttles_pkey"),
    )
    op.create_index("auth_throttles_updated_idx", "auth_throttles", ["updated_at"])
    op.create_table(
        "rate_buckets",
        sa.Column("bucket", sa.Text, nullable=False),
        sa.Column("subject", sa.Text, nullable=False),
        sa.Column("tokens", sa.Float, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False,
                  server_default=sa.func.now()),
        sa.PrimaryKeyConstraint("bucket", "subject", name="rate_buckets_pkey"),
    )
    op.create_index("rate_buckets_updated_idx", "rate_buckets", ["updated_at"])


def downgrade() -> None:
    op.drop_table("rate_buckets")
    op.drop_table("auth_throttles")
