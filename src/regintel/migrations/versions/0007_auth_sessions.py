"""Accounts for the web app (issue 8): sessions and invitations.

Both tables are tenant-owned and get the usual ``tenant_isolation`` policy. A session or an
invitation must also be found *before* the tenant is known (a request arrives with only a
token). Rather than a privileged look-up, each table has a second, SELECT-only policy that
shows exactly the row whose token hash the caller has put in ``regintel.token_hash``: holding
the token is the capability, the application role stays non-privileged, and a session bound to
a tenant (no token hash set) still sees only its own tenant's rows. Only SHA-256 hashes of the
tokens are stored, so a copy of the table cannot be replayed.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import UUID

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

TOKEN_TABLES = ("auth_sessions", "invitations")


def upgrade() -> None:
    op.create_table(
        "auth_sessions",
        sa.Column("token_hash", sa.Text, primary_key=True),
        sa.Column("tenant_id", UUID(as_uuid=True), nullable=False),
        sa.Column("user_id", UUID(as_uuid=True), nullable=False),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False,
                  server_default=sa.func.now()),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("kind IN ('cookie', 'bearer')", name="auth_sessions_kind_check"),
        # Removing a member (or the tenant, or the user) ends their sessions at once.
        sa.ForeignKeyConstraint(["tenant_id", "user_id"],
                                ["memberships.tenant_id", "memberships.user_id"],
                                ondelete="CASCADE", name="auth_sessions_membership_fkey"),
    )
    op.create_index("auth_sessions_tenant_user_idx", "auth_sessions", ["tenant_id", "user_id"])
    op.create_table(
        "invitations",
        sa.Column("id", UUID(as_uuid=True), primary_key=True,
                  server_default=sa.text("gen_random_uuid()")),
        sa.Column("tenant_id", UUID(as_uuid=True),
                  sa.ForeignKey("tenants.id", ondelete="CASCADE"), nullable=False),
        sa.Column("email", sa.Text, nullable=False),
        sa.Column("role", sa.Text, nullable=False, server_default="member"),
        sa.Column("token_hash", sa.Text, nullable=False, unique=True),
        sa.Column("invited_by", UUID(as_uuid=True),
                  sa.ForeignKey("users.id", ondelete="SET NULL")),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False,
                  server_default=sa.func.now()),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("accepted_at", sa.DateTime(timezone=True)),
        sa.CheckConstraint("role IN ('admin', 'member')", name="invitations_role_check"),
    )
    op.create_index("invitations_tenant_idx", "invitations", ["tenant_id"])
    for table in TOKEN_TABLES:
        op.execute(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")
        op.execute(f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY")
        op.execute(f"CREATE POLICY tenant_isolation ON {table} "
                   "USING (tenant_id = regintel_current_tenant()) "
                   "WITH CHECK (tenant_id = regintel_current_tenant())")
        op.execute(f"CREATE POLICY token_lookup ON {table} FOR SELECT "
                   "USING (token_hash = NULLIF(current_setting('regintel.token_hash', true), ''))")


def downgrade() -> None:
    op.drop_table("invitations")
    op.drop_table("auth_sessions")
