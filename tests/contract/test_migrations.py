from __future__ import annotations

import psycopg

from regintel.adapters.postgres.migrate import current_revision, head_revision, migrate


def _tables(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'").fetchall()
    return {r[0] for r in rows}


def test_migrate_creates_schema_then_is_a_noop_then_downgrades(empty_db_url: str) -> None:
    first = migrate(empty_db_url)
    assert first.before is None and first.after == head_revision() and first.changed
    tables = _tables(empty_db_url)
    assert {"tenants", "users", "documents", "chunks", "conversation_context", "memory_qa",
            "usage_events", "procrastinate_jobs", "checkpoints", "checkpoint_writes"} <= tables

    second = migrate(empty_db_url)
    assert not second.changed and current_revision(empty_db_url) == head_revision()

    down = migrate(empty_db_url, target="base", downgrade=True)
    assert down.after is None
    assert _tables(empty_db_url) == {"alembic_version"}
    with psycopg.connect(empty_db_url) as conn:
        leftovers = conn.execute(
            "SELECT t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace "
            "WHERE n.nspname = 'public' AND t.typname LIKE 'procrastinate%'").fetchall()
        functions = conn.execute(
            "SELECT proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
            "WHERE n.nspname = 'public' AND (proname LIKE 'procrastinate%' "
            "OR proname LIKE 'regintel%')").fetchall()
    assert leftovers == [] and functions == []

    again = migrate(empty_db_url)  # and back up, from base
    assert again.after == head_revision()


def test_chunk_indexes_use_settings(empty_db_url: str) -> None:
    migrate(empty_db_url, embedding_dim=384, hnsw_m=24, hnsw_ef_construction=100)
    with psycopg.connect(empty_db_url) as conn:
        indexdef = conn.execute(
            "SELECT indexdef FROM pg_indexes WHERE indexname = 'chunks_embedding_hnsw_idx'"
        ).fetchone()
        dim = conn.execute(
            "SELECT atttypmod FROM pg_attribute WHERE attrelid = 'chunks'::regclass "
            "AND attname = 'embedding'").fetchone()
        gin = conn.execute(
            "SELECT indexdef FROM pg_indexes WHERE indexname = 'chunks_tsv_idx'").fetchone()
    assert indexdef is not None and "hnsw" in indexdef[0] and "vector_cosine_ops" in indexdef[0]
    assert "m='24'" in indexdef[0] and "ef_construction='100'" in indexdef[0]
    assert dim is not None and dim[0] == 384
    assert gin is not None and "gin" in gin[0]
