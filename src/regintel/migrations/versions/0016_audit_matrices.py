"""An audit turn's coverage matrix (issue 36): every in-scope obligation of the regulations
audited against, with its status, quotes and fix, kept beside the answer message it belongs
to so the reports (XLSX, CSV, DOCX) export the whole matrix, not only the findings. A table
of its own rather than the message's metadata: a matrix runs to hundreds of kilobytes, which
the memory window and the browser's reload of a conversation would otherwise carry.
Tenant-owned: row-level security as every tenant table; rows go with their message.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB, UUID

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "audit_matrices",
        sa.Column("tenant_id", UUID(as_uuid=True), nullable=False),
        sa.Column("message_id", UUID(as_uuid=True), nullable=False),
        sa.Column("conversation_id", UUID(as_uuid=True), nullable=False),
        sa.Column("matrix", JSONB, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False,
                  server_default=sa.func.now()),
        sa.PrimaryKeyConstraint("message_id", name="audit_matrices_pkey"),
        sa.ForeignKeyConstraint(["message_id"], ["messages.id"], ondelete="CASCADE",
                                name="audit_matrices_message_id_fkey"),
        sa.ForeignKeyConstraint(["tenant_id", "conversation_id"],
                                ["conversations.tenant_id", "conversations.id"],
                                ondelete="CASCADE", name="audit_matrices_conversation_fkey"),
    )
    op.execute("ALTER TABLE audit_matrices ENABLE ROW LEVEL SECURITY")
    op.execute("ALTER TABLE audit_matrices FORCE ROW LEVEL SECURITY")
    op.execute("CREATE POLICY tenant_isolation ON audit_matrices "
               "USING (tenant_id = regintel_current_tenant()) "
               "WITH CHECK (tenant_id = regintel_current_tenant())")


def downgrade() -> None:
    op.drop_table("audit_matrices")
