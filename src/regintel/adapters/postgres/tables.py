"""SQLAlchemy Core tables: what repositories query. The schema itself is created only by the
Alembic migrations in ``regintel/migrations``; ``tests/contract/test_schema.py`` proves the two
agree."""

from __future__ import annotations

from typing import Any

from pgvector.sqlalchemy import Vector
from sqlalchemy import (
    ARRAY,
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    Computed,
    Date,
    DateTime,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    Numeric,
    PrimaryKeyConstraint,
    Table,
    Text,
    UniqueConstraint,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB, TSVECTOR, UUID

EMBEDDING_DIM = 384  # must match settings.embedding.dimension at migration time

metadata = MetaData()


def _id() -> Column[Any]:
    return Column("id", UUID(as_uuid=True), primary_key=True,
                  server_default=text("gen_random_uuid()"))


def _tenant() -> Column[Any]:
    return Column("tenant_id", UUID(as_uuid=True),
                  ForeignKey("tenants.id", ondelete="CASCADE"), nullable=False)


def _created() -> Column[Any]:
    return Column("created_at", DateTime(timezone=True), nullable=False, server_default=func.now())


def _updated() -> Column[Any]:
    return Column("updated_at", DateTime(timezone=True), nullable=False, server_default=func.now())


tenants = Table(
    "tenants", metadata,
    _id(),
    Column("name", Text, nullable=False),
    Column("slug", Text, nullable=False, unique=True),
    _created(),
)

users = Table(
    "users", metadata,
    _id(),
    Column("email", Text, nullable=False),
    Column("password_hash", Text, nullable=False),
    Column("display_name", Text, nullable=False, server_default=""),
    _created(),
    Column("last_login_at", DateTime(timezone=True)),
    Index("users_email_key", func.lower(text("email")), unique=True),
)

memberships = Table(
    "memberships", metadata,
    Column("tenant_id", UUID(as_uuid=True), ForeignKey("tenants.id", ondelete="CASCADE"),
           primary_key=True),
    Column("user_id", UUID(as_uuid=True), ForeignKey("users.id", ondelete="CASCADE"),
           primary_key=True),
    Column("role", Text, nullable=False, server_default="member"),
    _created(),
    CheckConstraint("role IN ('owner', 'admin', 'member')", name="memberships_role_check"),
)

user_profiles = Table(
    "user_profiles", metadata,
    Column("tenant_id", UUID(as_uuid=True), ForeignKey("tenants.id", ondelete="CASCADE"),
           primary_key=True),
    Column("user_id", UUID(as_uuid=True), ForeignKey("users.id", ondelete="CASCADE"),
           primary_key=True),
    Column("company", Text, nullable=False, server_default=""),
    Column("country", Text, nullable=False, server_default=""),
    Column("industry", Text, nullable=False, server_default=""),
    Column("description", Text, nullable=False, server_default=""),
    Column("completed_at", DateTime(timezone=True)),
    _updated(),
)

document_sets = Table(
    "document_sets", metadata,
    _id(),
    _tenant(),
    Column("name", Text, nullable=False),
    Column("colour", Text, nullable=False),
    _created(),
    UniqueConstraint("tenant_id", "id", name="document_sets_tenant_id_id_key"),
    Index("document_sets_tenant_name_key", "tenant_id", func.lower(text("name")), unique=True),
)

documents = Table(
    "documents", metadata,
    _id(),
    _tenant(),
    Column("set_id", UUID(as_uuid=True)),
    Column("title", Text, nullable=False),
    Column("version", Text, nullable=False, server_default=""),
    Column("doc_type", Text, nullable=False),
    Column("status", Text, nullable=False, server_default="queued"),
    Column("status_reason", Text),
    Column("content_hash", Text, nullable=False),
    Column("file_path", Text, nullable=False),
    Column("original_filename", Text, nullable=False),
    Column("mime_type", Text, nullable=False),
    Column("size_bytes", BigInteger, nullable=False),
    Column("page_count", Integer),
    Column("char_count", Integer),
    Column("chunk_count", Integer, nullable=False, server_default="0"),
    Column("supersedes_id", UUID(as_uuid=True)),
    Column("uploaded_by", UUID(as_uuid=True), ForeignKey("users.id", ondelete="SET NULL")),
    Column("embedding_model", Text),
    Column("embedding_dim", Integer),
    Column("is_public", Boolean, nullable=False, server_default=text("false")),
    _created(),
    Column("token_total", BigInteger, nullable=False, server_default="0"),
    _updated(),
    Column("ready_at", DateTime(timezone=True)),
    Column("chunks_embedded", Integer, nullable=False, server_default="0"),
    Column("chunks_total", Integer, nullable=False, server_default="0"),
    Column("processing_started_at", DateTime(timezone=True)),
    # Versions (migration 0018): the family is its first version's id (NULL: no version was
    # ever added); the label is ``version``.
    Column("family_id", UUID(as_uuid=True)),
    Column("effective_date", Date),
    CheckConstraint("doc_type IN ('regulation', 'policy')", name="documents_doc_type_check"),
    CheckConstraint("status IN ('queued', 'processing', 'ready', 'failed')",
                    name="documents_status_check"),
    UniqueConstraint("tenant_id", "id", name="documents_tenant_id_id_key"),
    UniqueConstraint("tenant_id", "content_hash", name="documents_tenant_content_hash_key"),
    ForeignKeyConstraint(["tenant_id", "set_id"], ["document_sets.tenant_id", "document_sets.id"],
                         name="documents_set_fkey"),
    ForeignKeyConstraint(["tenant_id", "supersedes_id"], ["documents.tenant_id", "documents.id"],
                         name="documents_supersedes_fkey"),
    ForeignKeyConstraint(["tenant_id", "family_id"], ["documents.tenant_id", "documents.id"],
                         name="documents_family_fkey"),
    Index("documents_tenant_status_idx", "tenant_id", "status"),
    Index("documents_family_idx", "tenant_id", "family_id",
          postgresql_where=text("family_id IS NOT NULL")),
)

chunks = Table(
    "chunks", metadata,
    _id(),
    Column("tenant_id", UUID(as_uuid=True), nullable=False),
    Column("document_id", UUID(as_uuid=True), nullable=False),
    Column("ordinal", Integer, nullable=False),
    Column("text", Text, nullable=False),
    Column("page_start", Integer, nullable=False),
    Column("page_end", Integer, nullable=False),
    Column("clause", Text),
    Column("char_start", Integer, nullable=False),
    Column("char_end", Integer, nullable=False),
    Column("embedding", Vector(EMBEDDING_DIM)),
    Column("tsv", TSVECTOR, Computed("to_tsvector('english', text)", persisted=True)),
    _created(),
    Column("token_count", Integer, nullable=False, server_default="0"),
    Column("section", Text),
    Column("section_changes", JSONB, nullable=False, server_default=text("'[]'::jsonb")),
    Column("line_start", Integer),
    Column("line_end", Integer),
    ForeignKeyConstraint(["tenant_id", "document_id"], ["documents.tenant_id", "documents.id"],
                         ondelete="CASCADE", name="chunks_document_fkey"),
    UniqueConstraint("document_id", "ordinal", name="chunks_document_ordinal_key"),
    Index("chunks_tenant_document_idx", "tenant_id", "document_id"),
    Index("chunks_tsv_idx", "tsv", postgresql_using="gin"),
    Index("chunks_embedding_hnsw_idx", "embedding", postgresql_using="hnsw",
          postgresql_ops={"embedding": "vector_cosine_ops"}),
)

chunk_terms = Table(
    "chunk_terms", metadata,
    Column("tenant_id", UUID(as_uuid=True), nullable=False),
    Column("chunk_id", UUID(as_uuid=True), ForeignKey("chunks.id", ondelete="CASCADE"),
           primary_key=True),
    Column("term", Text, primary_key=True),
    Column("document_id", UUID(as_uuid=True), nullable=False),
    Column("tf", Integer, nullable=False),
    Column("dl", Integer, nullable=False),
    Index("chunk_terms_postings_idx", "tenant_id", "term",
          postgresql_include=["chunk_id", "document_id", "tf", "dl"]),
)

conversations = Table(
    "conversations", metadata,
    _id(),
    _tenant(),
    Column("user_id", UUID(as_uuid=True), ForeignKey("users.id", ondelete="SET NULL")),
    Column("title", Text, nullable=False, server_default=""),
    Column("project_id", UUID(as_uuid=True)),
    _created(),
    _updated(),
    Column("last_message_at", DateTime(timezone=True)),
    Column("engine", Text),  # NULL: the deployment's default engine
    CheckConstraint("engine IN ('offline', 'local', 'cloud')",
                    name="conversations_engine_check"),
    UniqueConstraint("tenant_id", "id", name="conversations_tenant_id_id_key"),
    Index("conversations_tenant_recent_idx", "tenant_id", "last_message_at"),
)


def _conversation_fk(name: str) -> ForeignKeyConstraint:
    return ForeignKeyConstraint(["tenant_id", "conversation_id"],
                                ["conversations.tenant_id", "conversations.id"],
                                ondelete="CASCADE", name=name)


messages = Table(
    "messages", metadata,
    _id(),
    Column("tenant_id", UUID(as_uuid=True), nullable=False),
    Column("conversation_id", UUID(as_uuid=True), nullable=False),
    Column("role", Text, nullable=False),
    Column("content", Text, nullable=False),
    Column("metadata", JSONB, nullable=False, server_default=text("'{}'::jsonb")),
    _created(),
    CheckConstraint("role IN ('user', 'assistant', 'system', 'tool')", name="messages_role_check"),
    _conversation_fk("messages_conversation_fkey"),
    Index("messages_conversation_idx", "tenant_id", "conversation_id", "created_at"),
)

conversation_context = Table(
    "conversation_context", metadata,
    Column("tenant_id", UUID(as_uuid=True), primary_key=True),
    Column("conversation_id", UUID(as_uuid=True), primary_key=True),
    Column("context_json", JSONB, nullable=False),
    _updated(),
    _conversation_fk("conversation_context_conversation_fkey"),
)

memory_summaries = Table(
    "memory_summaries", metadata,
    Column("tenant_id", UUID(as_uuid=True), primary_key=True),
    Column("conversation_id", UUID(as_uuid=True), primary_key=True),
    Column("summary", Text, nullable=False),
    Column("covered_messages", Integer, nullable=False, server_default="0"),
    _updated(),
    _conversation_fk("memory_summaries_conversation_fkey"),
)

memory_qa = Table(
    "memory_qa", metadata,
    _id(),
    Column("tenant_id", UUID(as_uuid=True), nullable=False),
    Column("conversation_id", UUID(as_uuid=True), nullable=False),
    Column("question", Text, nullable=False),
    Column("answer_digest", Text, nullable=False),
    Column("topics", ARRAY(Text), nullable=False, server_default=text("'{}'::text[]")),
    Column("source_ids", JSONB, nullable=False, server_default=text("'[]'::jsonb")),
    Column("embedding", Vector(EMBEDDING_DIM)),
    _created(),
    _conversation_fk("memory_qa_conversation_fkey"),
    Index("memory_qa_conversation_idx", "tenant_id", "conversation_id"),
)

faq_entries = Table(
    "faq_entries", metadata,
    _id(),
    _tenant(),
    Column("question", Text, nullable=False),
    Column("answer", Text, nullable=False),
    Column("embedding", Vector(EMBEDDING_DIM), nullable=False),
    _created(),
    Index("faq_entries_tenant_idx", "tenant_id"),
)

usage_events = Table(
    "usage_events", metadata,
    _id(),
    _tenant(),
    Column("user_id", UUID(as_uuid=True), ForeignKey("users.id", ondelete="SET NULL")),
    Column("conversation_id", UUID(as_uuid=True)),
    Column("action", Text, nullable=False, server_default=""),
    Column("engine", Text, nullable=False),
    Column("model", Text, nullable=False, server_default=""),
    Column("input_tokens", Integer, nullable=False, server_default="0"),
    Column("output_tokens", Integer, nullable=False, server_default="0"),
    Column("cost_usd", Numeric(12, 6), nullable=False, server_default="0"),
    _created(),
    Index("usage_events_tenant_time_idx", "tenant_id", "created_at"),
)

# The audit's unit vectors (migration 0008, retrieval.unit_vectors): float32 bytes.
unit_vectors = Table(
    "unit_vectors", metadata,
    Column("tenant_id", UUID(as_uuid=True), nullable=False),
    Column("document_id", UUID(as_uuid=True), nullable=False),
    Column("model", Text, nullable=False),
    Column("digest", LargeBinary, nullable=False),
    Column("vector", LargeBinary, nullable=False),
    _created(),
    PrimaryKeyConstraint("tenant_id", "document_id", "model", "digest",
                         name="unit_vectors_pkey"),
    ForeignKeyConstraint(["tenant_id", "document_id"], ["documents.tenant_id", "documents.id"],
                         ondelete="CASCADE", name="unit_vectors_document_fkey"),
)

# The obligation register (migration 0013, obligations.register): a document's obligations,
# and which documents' registers are built (by which extractor version).
obligation_registers = Table(
    "obligation_registers", metadata,
    Column("tenant_id", UUID(as_uuid=True), nullable=False),
    Column("document_id", UUID(as_uuid=True), nullable=False),
    Column("extractor_version", Integer, nullable=False),
    Column("obligation_count", Integer, nullable=False),
    _created(),
    PrimaryKeyConstraint("tenant_id", "document_id", name="obligation_registers_pkey"),
    ForeignKeyConstraint(["tenant_id", "document_id"], ["documents.tenant_id", "documents.id"],
                         ondelete="CASCADE", name="obligation_registers_document_fkey"),
)
obligations = Table(
    "obligations", metadata,
    Column("tenant_id", UUID(as_uuid=True), nullable=False),
    Column("id", UUID(as_uuid=True), nullable=False),
    Column("document_id", UUID(as_uuid=True), nullable=False),
    Column("ordinal", Integer, nullable=False),
    Column("rule", Text),
    Column("section", Text),
    Column("page", Integer),
    Column("text", Text, nullable=False),
    Column("lead_in", Text),
    Column("items", JSONB, nullable=False, server_default=text("'[]'::jsonb")),
    Column("conditions", JSONB, nullable=False, server_default=text("'[]'::jsonb")),
    Column("actor", Text),
    Column("modal", Text, nullable=False),
    Column("strength", Text, nullable=False),
    Column("facts", JSONB, nullable=False, server_default=text("'[]'::jsonb")),
    Column("chunk_ids", JSONB, nullable=False, server_default=text("'[]'::jsonb")),
    _created(),
    PrimaryKeyConstraint("tenant_id", "id", name="obligations_pkey"),
    ForeignKeyConstraint(["tenant_id", "document_id"], ["documents.tenant_id", "documents.id"],
                         ondelete="CASCADE", name="obligations_document_fkey"),
    Index("obligations_document_idx", "tenant_id", "document_id", "ordinal"),
)

# An audit turn's coverage matrix (issue 36, migration 0016): every in-scope obligation with
# its status and quotes, for the reports. Beside its answer message, not in the message's
# metadata: a matrix is hundreds of kilobytes that the conversation's memory window and the
# messages the browser reloads have no use for.
audit_matrices = Table(
    "audit_matrices", metadata,
    Column("tenant_id", UUID(as_uuid=True), nullable=False),
    Column("message_id", UUID(as_uuid=True),
           ForeignKey("messages.id", ondelete="CASCADE"), primary_key=True),
    Column("conversation_id", UUID(as_uuid=True), nullable=False),
    Column("matrix", JSONB, nullable=False),
    _created(),
    _conversation_fk("audit_matrices_conversation_fkey"),
)

# The officer's review decisions (issue 47, migration 0017): append-only, the latest on a row
# in force; keyed by policy, regulation and obligation rather than by conversation or document,
# so a decision carries into the next audit of the same policy (hence no foreign keys to them).
review_decisions = Table(
    "review_decisions", metadata,
    _id(),
    _tenant(),
    Column("policy_key", Text, nullable=False),
    Column("regulation_key", Text, nullable=False),
    Column("obligation_key", Text, nullable=False),
    Column("rule", Text),
    Column("decision", Text, nullable=False),
    Column("clause", Text),
    Column("note", Text, nullable=False, server_default=""),
    Column("context_key", Text, nullable=False, server_default=""),
    Column("policy_document_id", UUID(as_uuid=True)),
    Column("regulation_document_id", UUID(as_uuid=True)),
    Column("conversation_id", UUID(as_uuid=True)),
    Column("message_id", UUID(as_uuid=True)),
    Column("decided_by", UUID(as_uuid=True), ForeignKey("users.id", ondelete="SET NULL")),
    Column("decided_by_name", Text, nullable=False, server_default=""),
    Column("decided_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    CheckConstraint("decision IN ('met', 'partly_met', 'gap', 'not_applicable')",
                    name="review_decisions_decision_check"),
    Index("review_decisions_row_idx", "tenant_id", "policy_key", "regulation_key",
          "obligation_key", text("decided_at DESC")),
)

# The change report of two versions of a document (issue 48, migration 0018), as JSON.
change_reports = Table(
    "change_reports", metadata,
    Column("tenant_id", UUID(as_uuid=True), nullable=False),
    Column("old_document_id", UUID(as_uuid=True), nullable=False),
    Column("new_document_id", UUID(as_uuid=True), nullable=False),
    Column("report_version", Integer, nullable=False),
    Column("report", JSONB, nullable=False),
    _created(),
    PrimaryKeyConstraint("tenant_id", "old_document_id", "new_document_id",
                         name="change_reports_pkey"),
    ForeignKeyConstraint(["tenant_id", "old_document_id"], ["documents.tenant_id", "documents.id"],
                         ondelete="CASCADE", name="change_reports_old_document_fkey"),
    ForeignKeyConstraint(["tenant_id", "new_document_id"], ["documents.tenant_id", "documents.id"],
                         ondelete="CASCADE", name="change_reports_new_document_fkey"),
    Index("change_reports_new_document_idx", "tenant_id", "new_document_id"),
)

# Tables whose rows belong to one tenant; each has RLS keyed on ``tenant_id``.
TENANT_TABLES: tuple[Table, ...] = (
    memberships, user_profiles, document_sets, documents, chunks, chunk_terms, conversations,
    messages,
    conversation_context, memory_summaries, memory_qa, usage_events, faq_entries, unit_vectors,
    obligation_registers, obligations, audit_matrices, review_decisions, change_reports,
)

# Accounts (issue 8, migration 0007): tokens are stored only as SHA-256 hashes.
auth_sessions = Table(
    "auth_sessions", metadata,
    Column("token_hash", Text, primary_key=True),
    Column("tenant_id", UUID(as_uuid=True), nullable=False),
    Column("user_id", UUID(as_uuid=True), nullable=False),
    Column("kind", Text, nullable=False),
    _created(),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    CheckConstraint("kind IN ('cookie', 'bearer')", name="auth_sessions_kind_check"),
    ForeignKeyConstraint(["tenant_id", "user_id"],
                         ["memberships.tenant_id", "memberships.user_id"],
                         ondelete="CASCADE", name="auth_sessions_membership_fkey"),
    Index("auth_sessions_tenant_user_idx", "tenant_id", "user_id"),
)

invitations = Table(
    "invitations", metadata,
    _id(),
    _tenant(),
    Column("email", Text, nullable=False),
    Column("role", Text, nullable=False, server_default="member"),
    Column("token_hash", Text, nullable=False, unique=True),
    Column("invited_by", UUID(as_uuid=True), ForeignKey("users.id", ondelete="SET NULL")),
    _created(),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Column("accepted_at", DateTime(timezone=True)),
    CheckConstraint("role IN ('admin', 'member')", name="invitations_role_check"),
    Index("invitations_tenant_idx", "tenant_id"),
)

TENANT_TABLES = (*TENANT_TABLES, auth_sessions, invitations)
