"""The audit's unit vectors, kept across processes: a regulation's and a policy's sentences
as the embedding model read them (chat.offline.unit_vectors). Keyed by tenant, document,
model and a SHA-256 digest of the text; the vector is float32 bytes, so a model of another
dimension needs no schema change. Rows go with their document (and tenant).

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import UUID

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "unit_vectors",
        sa.Column("tenant_id", UUID(as_uuid=True), nullable=False),
        sa.Column("document_id", UUID(as_uuid=True), nullable=False),
        sa.Column("model", sa.Text, nullable=False),
        sa.Column("digest", sa.LargeBinary, nullable=False),
        sa.Column("vector", sa.LargeBinary, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False,
                  server_default=sa.func.now()),
        sa.PrimaryKeyConstraint("tenant_id", "document_id", "model", "digest",
                                name="unit_vectors_pkey"),
        sa.ForeignKeyConstraint(["tenant_id", "document_id"],
                                ["documents.tenant_id", "documents.id"],
                                ondelete="CASCADE", name="unit_vectors_document_fkey"),
    )
    op.execute("ALTER TABLE unit_vectors ENABLE ROW LEVEL SECURITY")
    op.execute("ALTER TABLE unit_vectors FORCE ROW LEVEL SECURITY")
    op.execute("CREATE POLICY tenant_isolation ON unit_vectors "
               "USING (tenant_id = regintel_current_tenant()) "
               "WITH CHECK (tenant_id = regintel_current_tenant())")


def downgrade() -> None:
    op.drop_table("unit_vectors")
