"""The officer's review decisions on audits (issue 47): one row per decision, never updated or
deleted by the application, so the trail of who decided what on which row stands as it was
made; the latest decision on a row is the one in force. Keyed by the policy's and the
regulation's titles and the obligation's key (domain/review.py), not by a conversation or a
document: a decision carries into the next audit of the same policy, in any conversation and
after a re-upload. So no foreign key to conversations, messages or documents (their ids are
kept as where the decision was made, and outlive them); the rows go with their tenant.
Tenant-owned: row-level security as every tenant table.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import UUID

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

APP_ROLE = "regintel_app"


def upgrade() -> None:
    op.create_table(
        "review_decisions",
        sa.Column("id", UUID(as_uuid=True), primary_key=True,
                  server_default=sa.text("gen_random_uuid()")),
        sa.Column("tenant_id", UUID(as_uuid=True),
                  sa.ForeignKey("tenants.id", ondelete="CASCADE"), nullable=False),
        sa.Column("policy_key", sa.Text, nullable=False),
        sa.Column("regulation_key", sa.Text, nullable=False),
        sa.Column("obligation_key", sa.Text, nullable=False),
        sa.Column("rule", sa.Text),
        sa.Column("decision", sa.Text, nullable=False),
        sa.Column("clause", sa.Text),
        sa.Column("note", sa.Text, nullable=False, server_default=""),
        sa.Column("context_key", sa.Text, nullable=False, server_default=""),
        sa.Column("policy_document_id", UUID(as_uuid=True)),
        sa.Column("regulation_document_id", UUID(as_uuid=True)),
        sa.Column("conversation_id", UUID(as_uuid=True)),
        sa.Column("message_id", UUID(as_uuid=True)),
        sa.Column("decided_by", UUID(as_uuid=True),
                  sa.ForeignKey("users.id", ondelete="SET NULL")),
        sa.Column("decided_by_name", sa.Text, nullable=False, server_default=""),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=False,
                  server_default=sa.func.now()),
        sa.CheckConstraint("decision IN ('met', 'partly_met', 'gap', 'not_applicable')",
                           name="review_decisions_decision_check"),
    )
    # The latest decision of each row of an audit: one index range per policy × regulation.
    op.execute("CREATE INDEX review_decisions_row_idx ON review_decisions "
               "(tenant_id, policy_key, regulation_key, obligation_key, decided_at DESC)")
    op.execute("ALTER TABLE review_decisions ENABLE ROW LEVEL SECURITY")
    op.execute("ALTER TABLE review_decisions FORCE ROW LEVEL SECURITY")
    op.execute("CREATE POLICY tenant_isolation ON review_decisions "
               "USING (tenant_id = regintel_current_tenant()) "
               "WITH CHECK (tenant_id = regintel_current_tenant())")
    # Append-only for the application: a new decision supersedes, it never rewrites. (A
    # tenant's deletion still removes them: referential actions run as the table's owner.)
    op.execute(f"REVOKE UPDATE, DELETE ON review_decisions FROM {APP_ROLE}")


def downgrade() -> None:
    op.drop_table("review_decisions")
