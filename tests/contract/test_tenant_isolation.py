"""Row-level security is the second wall: a session bound to tenant A cannot see, write or
change tenant B's rows, even with raw SQL that forgets ``WHERE tenant_id``."""

from __future__ import annotations

import uuid
from typing import Any, cast
from uuid import UUID

import pytest
from sqlalchemy import CursorResult, text
from sqlalchemy.exc import DBAPIError, ProgrammingError

from regintel.adapters.postgres.database import Database
from regintel.adapters.postgres.ontology_tables import ONTOLOGY_TENANT_TABLES
from regintel.adapters.postgres.tables import TENANT_TABLES
from regintel.domain.ontology import LABEL_FIELD, MEMBER_KINDS, EntityKind


async def _seed_tenant(db: Database, name: str) -> dict[str, UUID]:
    ids = {k: uuid.uuid4() for k in ("tenant", "user", "set", "doc", "conv", "proj", "task",
                                     "risk", "signal")}
    statements: list[tuple[str, dict[str, str]]] = [
        ("INSERT INTO tenants (id, name, slug) VALUES (:tenant, :name, :name)", {}),
        ("INSERT INTO users (id, email, password_hash) VALUES (:user, :name || '@x.test', 'h')",
         {}),
        ("INSERT INTO memberships (tenant_id, user_id, role) VALUES (:tenant, :user, 'owner')", {}),
        ("INSERT INTO user_profiles (tenant_id, user_id, company) VALUES (:tenant, :user, :name)",
         {}),
        ("INSERT INTO document_sets (id, tenant_id, name, colour) "
         "VALUES (:set, :tenant, 'AML', 'blue')", {}),
        ("INSERT INTO documents (id, tenant_id, set_id, title, doc_type, content_hash, file_path,"
         " original_filename, mime_type, size_bytes, uploaded_by) VALUES (:doc, :tenant, :set,"
         " 'Rulebook', 'regulation', :name, 'f', 'f.pdf', 'application/pdf', 1, :user)", {}),
        ("INSERT INTO chunks (tenant_id, document_id, ordinal, text, page_start, page_end,"
         " char_start, char_end) VALUES (:tenant, :doc, 0, 'A firm must report.', 1, 1, 0, 19)",
         {}),
        ("INSERT INTO chunk_terms (tenant_id, chunk_id, term, document_id, tf, dl) "
         "SELECT tenant_id, id, 'firm', document_id, 1, 4 FROM chunks WHERE document_id = :doc",
         {}),
        ("INSERT INTO conversations (id, tenant_id, user_id, title) "
         "VALUES (:conv, :tenant, :user, 'Q')", {}),
        ("INSERT INTO messages (tenant_id, conversation_id, role, content) "
         "VALUES (:tenant, :conv, 'user', 'hello')", {}),
        ("INSERT INTO audit_matrices (tenant_id, message_id, conversation_id, matrix) "
         "SELECT tenant_id, id, conversation_id, '{\"rows\": []}' FROM messages "
         "WHERE conversation_id = :conv", {}),
        ("INSERT INTO review_decisions (tenant_id, policy_key, regulation_key, obligation_key,"
         " decision, conversation_id, decided_by) VALUES (:tenant, 'policy', 'rulebook', "
         "'0123456789abcdef01234567', 'gap', :conv, :user)", {}),
        ("INSERT INTO conversation_context (tenant_id, conversation_id, context_json) "
         "VALUES (:tenant, :conv, '{\"activeNodeIds\": []}')", {}),
        ("INSERT INTO memory_summaries (tenant_id, conversation_id, summary) "
         "VALUES (:tenant, :conv, 's')", {}),
        ("INSERT INTO memory_qa (tenant_id, conversation_id, question, answer_digest) "
         "VALUES (:tenant, :conv, 'q', 'a')", {}),
        ("INSERT INTO usage_events (tenant_id, user_id, engine) VALUES (:tenant, :user, 'offline')",
         {}),
        ("INSERT INTO faq_entries (tenant_id, question, answer, embedding) VALUES "
         "(:tenant, 'Who is our MLRO?', 'The Head of Compliance.', "
         "array_fill(0.1, ARRAY[384])::vector)", {}),
        ("INSERT INTO unit_vectors (tenant_id, document_id, model, digest, vector) VALUES "
         "(:tenant, :doc, 'all-MiniLM-L6-v2', '\\x01', '\\x0000803f')", {}),
        ("INSERT INTO auth_sessions (token_hash, tenant_id, user_id, kind, expires_at) "
         "VALUES (:name || '-session', :tenant, :user, 'cookie', now() + interval '1 day')", {}),
        ("INSERT INTO invitations (tenant_id, email, token_hash, invited_by, expires_at) "
         "VALUES (:tenant, 'new@' || :name || '.test', :name || '-invite', :user, "
         "now() + interval '7 days')", {}),
        ("INSERT INTO obligation_registers (tenant_id, document_id, extractor_version, "
         "obligation_count) VALUES (:tenant, :doc, 1, 1)", {}),
        ("INSERT INTO obligations (tenant_id, id, document_id, ordinal, text, modal, strength) "
         "VALUES (:tenant, gen_random_uuid(), :doc, 0, 'A firm must keep records.', 'must', "
         "'binding')", {}),
        ("INSERT INTO change_reports (tenant_id, old_document_id, new_document_id, "
         "report_version, report) VALUES (:tenant, :doc, :doc, 1, '{\"changes\": []}')", {}),
        *_ontology_seed(),
    ]
    async with db.system_session() as session:
        for sql, extra in statements:
            await session.execute(text(sql), {**ids, "name": name, **extra})
    return ids


def _ontology_seed() -> list[tuple[str, dict[str, str]]]:
    """A project with one entity of every kind and an edge (issue 6)."""
    rows: list[tuple[str, dict[str, str]]] = [
        ("INSERT INTO onto_projects (id, tenant_id, name) VALUES (:proj, :tenant, 'AML')", {})]
    for kind in MEMBER_KINDS:
        columns = {"tenant_id": ":tenant", "project_id": ":proj", LABEL_FIELD[kind]: "'x'"}
        if kind in (EntityKind.TASK, EntityKind.RISK, EntityKind.SIGNAL):
            columns["id"] = f":{kind.value}"
        if kind is EntityKind.DOCUMENT:
            columns["document_id"] = ":doc"
        if kind is EntityKind.INSIGHT:
            columns["derived_from_signal_id"] = ":signal"
        rows.append((f"INSERT INTO {kind.table} ({', '.join(columns)}) "
                     f"VALUES ({', '.join(columns.values())})", {}))
    rows.append(("INSERT INTO onto_edges (tenant_id, project_id, src_id, src_kind, rel, dst_id,"
                 " dst_kind) VALUES (:tenant, :proj, :task, 'task', 'mitigates', :risk, 'risk')",
                 {}))
    return rows


async def _tenant_owned_tables(db: Database) -> list[str]:
    async with db.system_session() as session:
        rows = await session.execute(text(
            "SELECT table_name FROM information_schema.columns "
            "WHERE table_schema = 'public' AND column_name = 'tenant_id' ORDER BY table_name"))
        return [r[0] for r in rows]


@pytest.fixture
async def two_tenants(database: Database) -> tuple[dict[str, UUID], dict[str, UUID]]:
    return await _seed_tenant(database, "alpha"), await _seed_tenant(database, "beta")


async def test_every_tenant_owned_table_has_forced_rls(database: Database) -> None:
    tables = await _tenant_owned_tables(database)
    # A new table must join the list.
    assert set(tables) == {t.name for t in (*TENANT_TABLES, *ONTOLOGY_TENANT_TABLES)}
    async with database.system_session() as session:
        rows = (await session.execute(text(
            "SELECT relname, relrowsecurity, relforcerowsecurity FROM pg_class "
            "WHERE relname = ANY(:names)"), {"names": [*tables, "tenants", "users"]})).all()
    assert len(rows) == len(tables) + 2
    assert all(enabled and forced for _, enabled, forced in rows), rows


async def test_raw_select_sees_only_own_rows_in_every_table(
    database: Database, two_tenants: tuple[dict[str, UUID], dict[str, UUID]]
) -> None:
    alpha, beta = two_tenants
    tables = await _tenant_owned_tables(database)
    async with database.system_session() as session:  # the seed really put rows on both sides
        for table in tables:
            owners = {r[0] for r in await session.execute(text(f"SELECT tenant_id FROM {table}"))}
            assert owners == {alpha["tenant"], beta["tenant"]}, table
    async with database.tenant_session(alpha["tenant"]) as session:
        for table in tables:
            visible = [r[0] for r in await session.execute(text(f"SELECT tenant_id FROM {table}"))]
            assert visible and set(visible) == {alpha["tenant"]}, table
        tenants = [r[0] for r in await session.execute(text("SELECT id FROM tenants"))]
        assert tenants == [alpha["tenant"]]
        users = [r[0] for r in await session.execute(text("SELECT id FROM users"))]
        assert users == [alpha["user"]]
        chunk_text = (await session.execute(text(
            "SELECT count(*) FROM chunks WHERE document_id = :d"), {"d": beta["doc"]})).scalar()
        assert chunk_text == 0


async def test_cannot_write_or_change_another_tenants_rows(
    database: Database, two_tenants: tuple[dict[str, UUID], dict[str, UUID]]
) -> None:
    alpha, beta = two_tenants
    async with database.tenant_session(alpha["tenant"]) as session:
        changed = cast(CursorResult[Any], await session.execute(
            text("UPDATE messages SET content = 'pwned'")))
        assert changed.rowcount == 1  # only its own message
        deleted = cast(CursorResult[Any], await session.execute(
            text("DELETE FROM documents WHERE id = :d"), {"d": beta["doc"]}))
        assert deleted.rowcount == 0
    with pytest.raises((ProgrammingError, DBAPIError), match="row-level security"):
        async with database.tenant_session(alpha["tenant"]) as session:
            await session.execute(text(
                "INSERT INTO document_sets (tenant_id, name, colour) VALUES (:t, 'x', 'red')"),
                {"t": beta["tenant"]})
    async with database.system_session() as session:
        content = (await session.execute(text(
            "SELECT content FROM messages WHERE tenant_id = :t"), {"t": beta["tenant"]})).scalar()
        docs = (await session.execute(text(
            "SELECT count(*) FROM documents WHERE id = :d"), {"d": beta["doc"]})).scalar()
    assert content == "hello" and docs == 1


async def test_session_without_tenant_sees_nothing(
    database: Database, two_tenants: tuple[dict[str, UUID], dict[str, UUID]]
) -> None:
    async with database.system_session() as session:
        await session.execute(text("SET LOCAL ROLE regintel_app"))
        count = (await session.execute(text("SELECT count(*) FROM documents"))).scalar()
    assert count == 0


async def test_cross_tenant_reference_is_refused_by_the_schema(
    database: Database, two_tenants: tuple[dict[str, UUID], dict[str, UUID]]
) -> None:
    """Composite foreign keys: a chunk of tenant A cannot point at tenant B's document."""
    alpha, beta = two_tenants
    with pytest.raises(DBAPIError, match="chunks_document_fkey"):
        async with database.system_session() as session:
            await session.execute(text(
                "INSERT INTO chunks (tenant_id, document_id, ordinal, text, page_start, page_end,"
                " char_start, char_end) VALUES (:t, :d, 5, 'x', 1, 1, 0, 1)"),
                {"t": alpha["tenant"], "d": beta["doc"]})


async def test_a_token_hash_shows_only_its_own_row_and_no_tenant_data(
    database: Database, two_tenants: tuple[dict[str, UUID], dict[str, UUID]]
) -> None:
    """Sessions and invitations are found before the tenant is known: the application role
    with only ``regintel.token_hash`` set sees that one row, nothing of other tables."""
    alpha, _ = two_tenants
    async with database.system_session() as session:
        await session.execute(text("SET LOCAL ROLE regintel_app"))
        await session.execute(text("SELECT set_config('regintel.token_hash', 'alpha-session', "
                                   "true)"))
        sessions = (await session.execute(text(
            "SELECT tenant_id FROM auth_sessions"))).scalars().all()
        invitations = (await session.execute(text(
            "SELECT count(*) FROM invitations"))).scalar()
        documents = (await session.execute(text("SELECT count(*) FROM documents"))).scalar()
        with pytest.raises(DBAPIError, match="row-level security"):
            async with session.begin_nested():
                await session.execute(text(
                    "INSERT INTO auth_sessions (token_hash, tenant_id, user_id, kind, "
                    "expires_at) VALUES ('forged', :t, :u, 'bearer', now())"),
                    {"t": alpha["tenant"], "u": alpha["user"]})
    assert sessions == [alpha["tenant"]] and invitations == 0 and documents == 0


async def test_cross_tenant_edge_is_refused_by_the_schema(
    database: Database, two_tenants: tuple[dict[str, UUID], dict[str, UUID]]
) -> None:
    """An ontology edge of tenant A cannot reach tenant B's entity, even from a session that
    sees both (the edge guard trigger), nor from A's own session (B's row is invisible)."""
    alpha, beta = two_tenants
    insert = text("INSERT INTO onto_edges (tenant_id, project_id, src_id, src_kind, rel, dst_id,"
                  " dst_kind) VALUES (:t, :p, :s, 'task', 'mitigates', :d, 'risk')")
    values = {"t": alpha["tenant"], "p": alpha["proj"], "s": alpha["task"], "d": beta["risk"]}
    with pytest.raises(DBAPIError, match="belongs to another tenant"):
        async with database.system_session() as session:
            await session.execute(insert, values)
    with pytest.raises(DBAPIError, match="does not exist"):
        async with database.tenant_session(alpha["tenant"]) as session:
            await session.execute(insert, values)
