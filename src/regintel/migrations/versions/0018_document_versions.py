"""Versions of a document (issue 48): a document uploaded as a new version of another joins
its family (``family_id``, the first version's id; NULL for a document no version was ever
added to) with its version label (the existing ``version`` column) and, when the user gives
one, the date it takes effect. Which version of a family is current is computed when read
(adapters/postgres/versions_sql.py), never stored: a date in the future becomes today.

And the change report of two versions, prepared by a follow-up job when the later one is
ingested (changes/stored.py), kept as JSON keyed by the two documents; it goes with either
of them. Tenant-owned: row-level security as every tenant table.

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB, UUID

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("documents", sa.Column("family_id", UUID(as_uuid=True)))
    op.add_column("documents", sa.Column("effective_date", sa.Date))
    # Same tenant by construction; deleting a family's first version re-keys the family to
    # the next one before the row goes (adapters/postgres/documents_repo.py), as for
    # supersedes_id.
    op.create_foreign_key("documents_family_fkey", "documents", "documents",
                          ["tenant_id", "family_id"], ["tenant_id", "id"])
    op.create_index("documents_family_idx", "documents", ["tenant_id", "family_id"],
                    postgresql_where=sa.text("family_id IS NOT NULL"))
    op.create_table(
        "change_reports",
        sa.Column("tenant_id", UUID(as_uuid=True), nullable=False),
        sa.Column("old_document_id", UUID(as_uuid=True), nullable=False),
        sa.Column("new_document_id", UUID(as_uuid=True), nullable=False),
        sa.Column("report_version", sa.Integer, nullable=False),
        sa.Column("report", JSONB, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False,
                  server_default=sa.func.now()),
        sa.PrimaryKeyConstraint("tenant_id", "old_document_id", "new_document_id",
                                name="change_reports_pkey"),
        sa.ForeignKeyConstraint(["tenant_id", "old_document_id"],
                                ["documents.tenant_id", "documents.id"],
                                ondelete="CASCADE", name="change_reports_old_document_fkey"),
        sa.ForeignKeyConstraint(["tenant_id", "new_document_id"],
                                ["documents.tenant_id", "documents.id"],
                                ondelete="CASCADE", name="change_reports_new_document_fkey"),
    )
    # A document's deletion finds the reports it is the later version of.
    op.create_index("change_reports_new_document_idx", "change_reports",
                    ["tenant_id", "new_document_id"])
    op.execute("ALTER TABLE change_reports ENABLE ROW LEVEL SECURITY")
    op.execute("ALTER TABLE change_reports FORCE ROW LEVEL SECURITY")
    op.execute("CREATE POLICY tenant_isolation ON change_reports "
               "USING (tenant_id = regintel_current_tenant()) "
               "WITH CHECK (tenant_id = regintel_current_tenant())")


def downgrade() -> None:
    op.drop_table("change_reports")
    op.drop_index("documents_family_idx", table_name="documents")
    op.drop_constraint("documents_family_fkey", "documents", type_="foreignkey")
    op.drop_column("documents", "effective_date")
    op.drop_column("documents", "family_id")
