"""Lexical index for BM25 in SQL: per-chunk term frequencies from the english ``tsvector``
(Snowball stemming, stopwords removed), each chunk's length in tokens, and each document's
token total (so corpus statistics read one row per document, not every chunk).

Postgres's own ``ts_rank`` has no document-frequency term, so it ranks regulatory passages
worse than BM25; the postings here let one SQL statement compute BM25 with an index scan per
query term. Postings carry the chunk's document and length so scoring is index-only.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import UUID

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("chunks", sa.Column("token_count", sa.Integer, nullable=False,
                                      server_default="0"))
    op.add_column("documents", sa.Column("token_total", sa.BigInteger, nullable=False,
                                         server_default="0"))
    op.create_table(
        "chunk_terms",
        sa.Column("tenant_id", UUID(as_uuid=True), nullable=False),
        sa.Column("chunk_id", UUID(as_uuid=True),
                  sa.ForeignKey("chunks.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("term", sa.Text, primary_key=True),
        sa.Column("document_id", UUID(as_uuid=True), nullable=False),
        sa.Column("tf", sa.Integer, nullable=False),
        sa.Column("dl", sa.Integer, nullable=False),
    )
    op.execute("CREATE INDEX chunk_terms_postings_idx ON chunk_terms (tenant_id, term) "
               "INCLUDE (chunk_id, document_id, tf, dl)")
    op.execute("ALTER TABLE chunk_terms ENABLE ROW LEVEL SECURITY")
    op.execute("ALTER TABLE chunk_terms FORCE ROW LEVEL SECURITY")
    op.execute("CREATE POLICY tenant_isolation ON chunk_terms "
               "USING (tenant_id = regintel_current_tenant()) "
               "WITH CHECK (tenant_id = regintel_current_tenant())")


def downgrade() -> None:
    op.drop_table("chunk_terms")
    op.drop_column("documents", "token_total")
    op.drop_column("chunks", "token_count")
