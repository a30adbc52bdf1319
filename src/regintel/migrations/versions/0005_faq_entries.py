"""Tenant-managed FAQ entries, matched by embedding in the chat's FAQ triage.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context, op
from pgvector.sqlalchemy import Vector
from sqlalchemy.dialects.postgresql import UUID

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    dim = int(context.config.attributes.get("embedding_dim", 384))
    op.create_table(
        "faq_entries",
        sa.Column("id", UUID(as_uuid=True), primary_key=True,
                  server_default=sa.text("gen_random_uuid()")),
        sa.Column("tenant_id", UUID(as_uuid=True),
                  sa.ForeignKey("tenants.id", ondelete="CASCADE"), nullable=False),
        sa.Column("question", sa.Text, nullable=False),
        sa.Column("answer", sa.Text, nullable=False),
        sa.Column("embedding", Vector(dim), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False,
                  server_default=sa.func.now()),
    )
    op.create_index("faq_entries_tenant_idx", "faq_entries", ["tenant_id"])
    op.execute("ALTER TABLE faq_entries ENABLE ROW LEVEL SECURITY")
    op.execute("ALTER TABLE faq_entries FORCE ROW LEVEL SECURITY")
    op.execute("CREATE POLICY tenant_isolation ON faq_entries "
               "USING (tenant_id = regintel_current_tenant()) "
               "WITH CHECK (tenant_id = regintel_current_tenant())")


def downgrade() -> None:
    op.drop_table("faq_entries")
