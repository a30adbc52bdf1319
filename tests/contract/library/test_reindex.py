"""Reindexing re-embeds documents whose recorded embedding model differs from the current one."""

from __future__ import annotations

from pathlib import Path
from uuid import UUID

import numpy as np
from sqlalchemy import text

from regintel.ingestion.reindex import Reindexer
from tests.contract.library.conftest import Library
from tests.contract.library.files import make_text


async def test_reindex_re_embeds_only_stale_documents(library: Library, tenant: UUID,
                                                     tmp_path: Path) -> None:
    stale = await library.add(tenant, make_text(tmp_path / "a.txt", "Rule 1.1 Report fraud."))
    fresh = await library.add(tenant, make_text(tmp_path / "b.txt", "Rule 2.1 Keep records."))
    async with library.database.system_session() as s:
        # As if an older model had embedded this document: zero vectors, another model name.
        await s.execute(text("UPDATE chunks SET embedding = array_fill(0, ARRAY[384])::vector "
                             "WHERE document_id = :d"), {"d": stale.id})
        await s.execute(text("UPDATE documents SET embedding_model = 'old-model' WHERE id = :d"),
                        {"d": stale.id})
        # The audit's vectors of each document by that model (retrieval.unit_vectors).
        for document in (stale, fresh):
            await s.execute(text(
                "INSERT INTO unit_vectors (tenant_id, document_id, model, digest, vector) "
                "VALUES (:t, :d, 'old-model', '\\x01', '\\x0000803f')"),
                {"t": tenant, "d": document.id})
    followed: list[tuple[UUID, UUID]] = []

    async def after(tenant_id: UUID, document_id: UUID) -> None:
        followed.append((tenant_id, document_id))

    reindexer = Reindexer(library.documents, library.index, library.embedder, after=after)
    assert await reindexer.run(tenant) == 1
    assert followed == [(tenant, stale.id)]  # its follow-ups (audit units) queued again
    assert (await library.documents.get(tenant, stale.id)).embedding_model == "all-MiniLM-L6-v2"
    async with library.database.system_session() as s:
        norms = (await s.execute(text(
            "SELECT document_id, vector_norm(embedding) FROM chunks WHERE document_id = ANY(:d)"),
            {"d": [stale.id, fresh.id]})).all()
    assert all(np.isclose(norm, 1.0, atol=1e-3) for _, norm in norms)
    async with library.database.system_session() as s:
        kept = (await s.execute(text("SELECT document_id FROM unit_vectors"))).scalars().all()
    assert kept == [fresh.id]  # the re-embedded document's old-model vectors are gone
    assert await reindexer.run(tenant) == 0  # nothing stale any more
    assert await reindexer.run(tenant, everything=True) == 2
