"""The obligation register (issue 36): one row per obligation sentence of a document, with its
rule number, section path, list items, conditions, actor, typed facts and the chunks it came
from; and one row per document whose register was built (by which extractor version, how
many obligations), so a document with none is not read again and an older register is
rebuilt. Tenant-owned: row-level security as every tenant table; rows go with their document.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB, UUID

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

_TABLES = ("obligation_registers", "obligations")


def upgrade() -> None:
    op.create_table(
        "obligation_registers",
        sa.Column("tenant_id", UUID(as_uuid=True), nullable=False),
        sa.Column("document_id", UUID(as_uuid=True), nullable=False),
        sa.Column("extractor_version", sa.Integer, nullable=False),
        sa.Column("obligation_count", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False,
                  server_default=sa.func.now()),
        sa.PrimaryKeyConstraint("tenant_id", "document_id", name="obligation_registers_pkey"),
        sa.ForeignKeyConstraint(["tenant_id", "document_id"],
                                ["documents.tenant_id", "documents.id"],
                                ondelete="CASCADE", name="obligation_registers_document_fkey"),
    )
    op.create_table(
        "obligations",
        sa.Column("tenant_id", UUID(as_uuid=True), nullable=False),
        sa.Column("id", UUID(as_uuid=True), nullable=False),
        sa.Column("document_id", UUID(as_uuid=True), nullable=False),
        sa.Column("ordinal", sa.Integer, nullable=False),
        sa.Column("rule", sa.Text),
        sa.Column("section", sa.Text),
        sa.Column("page", sa.Integer),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("lead_in", sa.Text),
        sa.Column("items", JSONB, nullable=False, server_default=sa.text("'[]'::jsonb")),
        sa.Column("conditions", JSONB, nullable=False, server_default=sa.text("'[]'::jsonb")),
        sa.Column("actor", sa.Text),
        sa.Column("modal", sa.Text, nullable=False),
        sa.Column("strength", sa.Text, nullable=False),
        sa.Column("facts", JSONB, nullable=False, server_default=sa.text("'[]'::jsonb")),
        sa.Column("chunk_ids", JSONB, nullable=False, server_default=sa.text("'[]'::jsonb")),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False,
                  server_default=sa.func.now()),
        sa.PrimaryKeyConstraint("tenant_id", "id", name="obligations_pkey"),
        sa.ForeignKeyConstraint(["tenant_id", "document_id"],
                                ["documents.tenant_id", "documents.id"],
                                ondelete="CASCADE", name="obligations_document_fkey"),
    )
    op.create_index("obligations_document_idx", "obligations",
                    ["tenant_id", "document_id", "ordinal"])
    for table in _TABLES:
        op.execute(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")
        op.execute(f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY")
        op.execute(f"CREATE POLICY tenant_isolation ON {table} "
                   "USING (tenant_id = regintel_current_tenant()) "
                   "WITH CHECK (tenant_id = regintel_current_tenant())")


def downgrade() -> None:
    op.drop_table("obligations")
    op.drop_table("obligation_registers")
