"""The audit's unit vectors in Postgres (table ``unit_vectors``, migration 0008)."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

import numpy as np
import numpy.typing as npt
from sqlalchemy import delete, select
from sqlalchemy.dialects.postgresql import insert

from regintel.adapters.postgres import tables as t
from regintel.adapters.postgres.database import Database
from regintel.ports.unit_vectors import Key

_table = t.unit_vectors


class PostgresUnitVectorStore:
    def __init__(self, database: Database) -> None:
        self._db = database

    async def load(self, tenant_id: UUID, model: str,
                   keys: Sequence[Key]) -> dict[Key, npt.NDArray[np.float32]]:
        if not keys:
            return {}
        wanted = set(keys)
        async with self._db.tenant_session(tenant_id) as s:
            rows = (await s.execute(
                select(_table.c.document_id, _table.c.digest, _table.c.vector)
                .where(_table.c.tenant_id == tenant_id, _table.c.model == model,
                       _table.c.document_id.in_({document for document, _ in wanted}),
                       _table.c.digest.in_({digest for _, digest in wanted})))).all()
        # The two IN lists also match a digest of one document under another: kept apart.
        return {(row.document_id, bytes(row.digest)): np.frombuffer(row.vector, dtype=np.float32)
                for row in rows if (row.document_id, bytes(row.digest)) in wanted}

    async def save(self, tenant_id: UUID, model: str,
                   vectors: dict[Key, npt.NDArray[np.float32]]) -> None:
        if not vectors:
            return
        rows = [{"tenant_id": tenant_id, "document_id": document, "model": model,
                 "digest": digest, "vector": np.asarray(vector, dtype=np.float32).tobytes()}
                for (document, digest), vector in vectors.items()]
        statement = insert(_table)
        # A key kept already gets the vector again: the same text by the same model, unless
        # the row was damaged (UnitVectors re-embeds a vector of the wrong size).
        statement = statement.on_conflict_do_update(
            constraint="unit_vectors_pkey", set_={"vector": statement.excluded.vector})
        async with self._db.tenant_session(tenant_id) as s:
            await s.execute(statement, rows)

    async def forget(self, tenant_id: UUID, document_id: UUID | None = None) -> None:
        """Drops the tenant's vectors, or one document's (``bench chat`` measures first
        audits with it)."""
        async with self._db.tenant_session(tenant_id) as s:
            await s.execute(delete(_table).where(
                _table.c.tenant_id == tenant_id,
                *([_table.c.document_id == document_id] if document_id else [])))
