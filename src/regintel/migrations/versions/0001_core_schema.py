"""Core tenant-owned schema: tenants, users, documents, chunks, conversations, memory, usage;
the non-privileged application role and row-level security on every tenant-owned table.

Revision ID: 0001
Revises:
Create Date: 2026-11-21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context, op
from pgvector.sqlalchemy import Vector
from sqlalchemy.dialects.postgresql import JSONB, TSVECTOR, UUID

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

APP_ROLE = "regintel_app"
TENANT_TABLES = (
    "memberships", "user_profiles", "document_sets", "documents", "chunks", "conversations",
    "messages", "conversation_context", "memory_summaries", "memory_qa", "usage_events",
)


def _uuid_pk() -> sa.Column:  # type: ignore[type-arg]
    return sa.Column("id", UUID(as_uuid=True), primary_key=True,
                     server_default=sa.text("gen_random_uuid()"))


def _tenant_fk() -> sa.Column:  # type: ignore[type-arg]
    return sa.Column("tenant_id", UUID(as_uuid=True),
                     sa.ForeignKey("tenants.id", ondelete="CASCADE"), nullable=False)


def _ts(name: str, *, nullable: bool = False) -> sa.Column:  # type: ignore[type-arg]
    if nullable:
        return sa.Column(name, sa.DateTime(timezone=True))
    return sa.Column(name, sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now())


def _conversation_fk(name: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(["tenant_id", "conversation_id"],
                                   ["conversations.tenant_id", "conversations.id"],
                                   ondelete="CASCADE", name=name)


def upgrade() -> None:
    attrs = context.config.attributes
    dim = int(attrs.get("embedding_dim", 384))
    hnsw_m = int(attrs.get("hnsw_m", 16))
    hnsw_ef = int(attrs.get("hnsw_ef_construction", 64))

    op.execute("CREATE EXTENSION IF NOT EXISTS vector")
    # Roles are cluster-wide; create once, never drop (other databases may use it).
    op.execute(f"""
        DO $$ BEGIN
          IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{APP_ROLE}') THEN
            CREATE ROLE {APP_ROLE} NOLOGIN NOSUPERUSER NOBYPASSRLS;
          END IF;
        END $$""")
    op.execute(f"GRANT {APP_ROLE} TO CURRENT_USER")
    op.execute("""
        CREATE FUNCTION regintel_current_tenant() RETURNS uuid
        LANGUAGE sql STABLE AS
        $$ SELECT NULLIF(current_setting('regintel.tenant_id', true), '')::uuid $$""")

    op.create_table(
        "tenants", _uuid_pk(),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("slug", sa.Text, nullable=False, unique=True),
        _ts("created_at"),
    )
    op.create_table(
        "users", _uuid_pk(),
        sa.Column("email", sa.Text, nullable=False),
        sa.Column("password_hash", sa.Text, nullable=False),
        sa.Column("display_name", sa.Text, nullable=False, server_default=""),
        _ts("created_at"), _ts("last_login_at", nullable=True),
    )
    op.create_index("users_email_key", "users", [sa.text("lower(email)")], unique=True)
    op.create_table(
        "memberships",
        sa.Column("tenant_id", UUID(as_uuid=True), sa.ForeignKey("tenants.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("user_id", UUID(as_uuid=True), sa.ForeignKey("users.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("role", sa.Text, nullable=False, server_default="member"),
        _ts("created_at"),
        sa.CheckConstraint("role IN ('owner', 'admin', 'member')", name="memberships_role_check"),
    )
    op.create_table(
        "user_profiles",
        sa.Column("tenant_id", UUID(as_uuid=True), sa.ForeignKey("tenants.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("user_id", UUID(as_uuid=True), sa.ForeignKey("users.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("company", sa.Text, nullable=False, server_default=""),
        sa.Column("country", sa.Text, nullable=False, server_default=""),
        sa.Column("industry", sa.Text, nullable=False, server_default=""),
        sa.Column("description", sa.Text, nullable=False, server_default=""),
        _ts("completed_at", nullable=True), _ts("updated_at"),
    )
    op.create_table(
        "document_sets", _uuid_pk(), _tenant_fk(),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("colour", sa.Text, nullable=False),
        _ts("created_at"),
        sa.UniqueConstraint("tenant_id", "id", name="document_sets_tenant_id_id_key"),
    )
    op.create_index("document_sets_tenant_name_key", "document_sets",
                    ["tenant_id", sa.text("lower(name)")], unique=True)
    op.create_table(
        "documents", _uuid_pk(), _tenant_fk(),
        sa.Column("set_id", UUID(as_uuid=True)),
        sa.Column("title", sa.Text, nullable=False),
        sa.Column("version", sa.Text, nullable=False, server_default=""),
        sa.Column("doc_type", sa.Text, nullable=False),
        sa.Column("status", sa.Text, nullable=False, server_default="queued"),
        sa.Column("status_reason", sa.Text),
        sa.Column("content_hash", sa.Text, nullable=False),
        sa.Column("file_path", sa.Text, nullable=False),
        sa.Column("original_filename", sa.Text, nullable=False),
        sa.Column("mime_type", sa.Text, nullable=False),
        sa.Column("size_bytes", sa.BigInteger, nullable=False),
        sa.Column("page_count", sa.Integer),
        sa.Column("char_count", sa.Integer),
        sa.Column("chunk_count", sa.Integer, nullable=False, server_default="0"),
        sa.Column("supersedes_id", UUID(as_uuid=True)),
        sa.Column("uploaded_by", UUID(as_uuid=True),
                  sa.ForeignKey("users.id", ondelete="SET NULL")),
        sa.Column("embedding_model", sa.Text),
        sa.Column("embedding_dim", sa.Integer),
        sa.Column("is_public", sa.Boolean, nullable=False, server_default=sa.text("false")),
        _ts("created_at"), _ts("updated_at"), _ts("ready_at", nullable=True),
        sa.CheckConstraint("doc_type IN ('regulation', 'policy')", name="documents_doc_type_check"),
        sa.CheckConstraint("status IN ('queued', 'processing', 'ready', 'failed')",
                           name="documents_status_check"),
        sa.UniqueConstraint("tenant_id", "id", name="documents_tenant_id_id_key"),
        sa.UniqueConstraint("tenant_id", "content_hash", name="documents_tenant_content_hash_key"),
        sa.ForeignKeyConstraint(["tenant_id", "set_id"],
                                ["document_sets.tenant_id", "document_sets.id"],
                                name="documents_set_fkey"),
        sa.ForeignKeyConstraint(["tenant_id", "supersedes_id"],
                                ["documents.tenant_id", "documents.id"],
                                name="documents_supersedes_fkey"),
    )
    op.create_index("documents_tenant_status_idx", "documents", ["tenant_id", "status"])
    op.create_table(
        "chunks", _uuid_pk(),
        sa.Column("tenant_id", UUID(as_uuid=True), nullable=False),
        sa.Column("document_id", UUID(as_uuid=True), nullable=False),
        sa.Column("ordinal", sa.Integer, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("page_start", sa.Integer, nullable=False),
        sa.Column("page_end", sa.Integer, nullable=False),
        sa.Column("clause", sa.Text),
        sa.Column("char_start", sa.Integer, nullable=False),
        sa.Column("char_end", sa.Integer, nullable=False),
        sa.Column("embedding", Vector(dim)),
        sa.Column("tsv", TSVECTOR, sa.Computed("to_tsvector('english', text)", persisted=True)),
        _ts("created_at"),
        sa.ForeignKeyConstraint(["tenant_id", "document_id"],
                                ["documents.tenant_id", "documents.id"],
                                ondelete="CASCADE", name="chunks_document_fkey"),
        sa.UniqueConstraint("document_id", "ordinal", name="chunks_document_ordinal_key"),
    )
    op.create_index("chunks_tenant_document_idx", "chunks", ["tenant_id", "document_id"])
    op.create_index("chunks_tsv_idx", "chunks", ["tsv"], postgresql_using="gin")
    op.execute(
        "CREATE INDEX chunks_embedding_hnsw_idx ON chunks USING hnsw (embedding vector_cosine_ops) "
        f"WITH (m = {hnsw_m}, ef_construction = {hnsw_ef})"
    )
    op.create_table(
        "conversations", _uuid_pk(), _tenant_fk(),
        sa.Column("user_id", UUID(as_uuid=True), sa.ForeignKey("users.id", ondelete="SET NULL")),
        sa.Column("title", sa.Text, nullable=False, server_default=""),
        sa.Column("project_id", UUID(as_uuid=True)),
        _ts("created_at"), _ts("updated_at"), _ts("last_message_at", nullable=True),
        sa.UniqueConstraint("tenant_id", "id", name="conversations_tenant_id_id_key"),
    )
    op.create_index("conversations_tenant_recent_idx", "conversations",
                    ["tenant_id", "last_message_at"])
    op.create_table(
        "messages", _uuid_pk(),
        sa.Column("tenant_id", UUID(as_uuid=True), nullable=False),
        sa.Column("conversation_id", UUID(as_uuid=True), nullable=False),
        sa.Column("role", sa.Text, nullable=False),
        sa.Column("content", sa.Text, nullable=False),
        sa.Column("metadata", JSONB, nullable=False, server_default=sa.text("'{}'::jsonb")),
        _ts("created_at"),
        sa.CheckConstraint("role IN ('user', 'assistant', 'system', 'tool')",
                           name="messages_role_check"),
        _conversation_fk("messages_conversation_fkey"),
    )
    op.create_index("messages_conversation_idx", "messages",
                    ["tenant_id", "conversation_id", "created_at"])
    op.create_table(
        "conversation_context",
        sa.Column("tenant_id", UUID(as_uuid=True), primary_key=True),
        sa.Column("conversation_id", UUID(as_uuid=True), primary_key=True),
        sa.Column("context_json", JSONB, nullable=False),
        _ts("updated_at"),
        _conversation_fk("conversation_context_conversation_fkey"),
    )
    op.create_table(
        "memory_summaries",
        sa.Column("tenant_id", UUID(as_uuid=True), primary_key=True),
        sa.Column("conversation_id", UUID(as_uuid=True), primary_key=True),
        sa.Column("summary", sa.Text, nullable=False),
        sa.Column("covered_messages", sa.Integer, nullable=False, server_default="0"),
        _ts("updated_at"),
        _conversation_fk("memory_summaries_conversation_fkey"),
    )
    op.create_table(
        "memory_qa", _uuid_pk(),
        sa.Column("tenant_id", UUID(as_uuid=True), nullable=False),
        sa.Column("conversation_id", UUID(as_uuid=True), nullable=False),
        sa.Column("question", sa.Text, nullable=False),
        sa.Column("answer_digest", sa.Text, nullable=False),
        sa.Column("topics", sa.ARRAY(sa.Text), nullable=False,
                  server_default=sa.text("'{}'::text[]")),
        sa.Column("source_ids", JSONB, nullable=False, server_default=sa.text("'[]'::jsonb")),
        sa.Column("embedding", Vector(dim)),
        _ts("created_at"),
        _conversation_fk("memory_qa_conversation_fkey"),
    )
    op.create_index("memory_qa_conversation_idx", "memory_qa", ["tenant_id", "conversation_id"])
    op.create_table(
        "usage_events", _uuid_pk(), _tenant_fk(),
        sa.Column("user_id", UUID(as_uuid=True), sa.ForeignKey("users.id", ondelete="SET NULL")),
        sa.Column("conversation_id", UUID(as_uuid=True)),
        sa.Column("action", sa.Text, nullable=False, server_default=""),
        sa.Column("engine", sa.Text, nullable=False),
        sa.Column("model", sa.Text, nullable=False, server_default=""),
        sa.Column("input_tokens", sa.Integer, nullable=False, server_default="0"),
        sa.Column("output_tokens", sa.Integer, nullable=False, server_default="0"),
        sa.Column("cost_usd", sa.Numeric(12, 6), nullable=False, server_default="0"),
        _ts("created_at"),
    )
    op.create_index("usage_events_tenant_time_idx", "usage_events", ["tenant_id", "created_at"])

    _grant_and_protect()


def _grant_and_protect() -> None:
    op.execute(f"GRANT USAGE ON SCHEMA public TO {APP_ROLE}")
    op.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {APP_ROLE}")
    op.execute(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {APP_ROLE}")
    # Tables added by later migrations get the same grants without repeating them.
    op.execute("ALTER DEFAULT PRIVILEGES IN SCHEMA public "
               f"GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO {APP_ROLE}")
    op.execute("ALTER DEFAULT PRIVILEGES IN SCHEMA public "
               f"GRANT USAGE, SELECT ON SEQUENCES TO {APP_ROLE}")
    # FORCE makes RLS apply to the table owner too (an external DATABASE_URL often is the owner).
    for table in TENANT_TABLES:
        _protect(table, "tenant_id = regintel_current_tenant()")
    _protect("tenants", "id = regintel_current_tenant()")
    # A user row is visible to a tenant only through a membership; sign-up and login use the
    # system session on purpose.
    _protect("users", "id IN (SELECT m.user_id FROM memberships m "
                      "WHERE m.tenant_id = regintel_current_tenant())", check="true")


def _protect(table: str, using: str, *, check: str | None = None) -> None:
    op.execute(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")
    op.execute(f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY")
    op.execute(f"CREATE POLICY tenant_isolation ON {table} USING ({using}) "
               f"WITH CHECK ({check or using})")


def downgrade() -> None:
    op.execute("DROP POLICY tenant_isolation ON users")  # it refers to memberships
    for table in ("usage_events", "memory_qa", "memory_summaries", "conversation_context",
                  "messages", "conversations", "chunks", "documents", "document_sets",
                  "user_profiles", "memberships", "users", "tenants"):
        op.drop_table(table)
    op.execute("DROP FUNCTION regintel_current_tenant()")
    op.execute("ALTER DEFAULT PRIVILEGES IN SCHEMA public "
               f"REVOKE SELECT, INSERT, UPDATE, DELETE ON TABLES FROM {APP_ROLE}")
    op.execute("ALTER DEFAULT PRIVILEGES IN SCHEMA public "
               f"REVOKE USAGE, SELECT ON SEQUENCES FROM {APP_ROLE}")
    op.execute(f"REVOKE USAGE ON SCHEMA public FROM {APP_ROLE}")
