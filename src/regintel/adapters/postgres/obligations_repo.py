"""The obligation register in Postgres (tables ``obligations`` and ``obligation_registers``,
migration 0013). Lists, conditions, facts and chunk ids are JSONB arrays of the domain
models' fields."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from sqlalchemy import delete, select
from sqlalchemy.dialects.postgresql import insert

from regintel.adapters.postgres import tables as t
from regintel.adapters.postgres.database import Database
from regintel.domain.coverage import (
    ObligationCondition,
    ObligationItem,
    ObligationRow,
    TypedFact,
)

_rows = t.obligations
_registers = t.obligation_registers
_BATCH = 1000


class PostgresObligationStore:
    def __init__(self, database: Database) -> None:
        self._db = database

    async def built(self, tenant_id: UUID, document_id: UUID) -> int | None:
        async with self._db.tenant_session(tenant_id) as s:
            version = await s.scalar(select(_registers.c.extractor_version).where(
                _registers.c.tenant_id == tenant_id, _registers.c.document_id == document_id))
        return int(version) if version is not None else None

    async def replace(self, tenant_id: UUID, document_id: UUID, version: int,
                      rows: Sequence[ObligationRow]) -> None:
        values = [_values(tenant_id, row) for row in rows]
        async with self._db.tenant_session(tenant_id) as s:
            await s.execute(delete(_rows).where(_rows.c.tenant_id == tenant_id,
                                                _rows.c.document_id == document_id))
            for start in range(0, len(values), _BATCH):
                await s.execute(insert(_rows), values[start:start + _BATCH])
            statement = insert(_registers).values(
                tenant_id=tenant_id, document_id=document_id, extractor_version=version,
                obligation_count=len(rows))
            await s.execute(statement.on_conflict_do_update(
                constraint="obligation_registers_pkey",
                set_={"extractor_version": version, "obligation_count": len(rows)}))

    async def list(self, tenant_id: UUID, document_id: UUID) -> list[ObligationRow]:
        async with self._db.tenant_session(tenant_id) as s:
            title = await s.scalar(select(t.documents.c.title).where(
                t.documents.c.tenant_id == tenant_id, t.documents.c.id == document_id))
            found = (await s.execute(select(_rows).where(
                _rows.c.tenant_id == tenant_id, _rows.c.document_id == document_id)
                .order_by(_rows.c.ordinal))).mappings().all()
        return [_row(dict(r), title or "") for r in found]


def _values(tenant_id: UUID, row: ObligationRow) -> dict[str, Any]:
    return {"tenant_id": tenant_id, "id": row.id, "document_id": row.document_id,
            "ordinal": row.ordinal, "rule": row.rule, "section": row.section, "page": row.page,
            "text": row.text, "lead_in": row.lead_in,
            "items": [i.model_dump() for i in row.items],
            "conditions": [c.model_dump() for c in row.conditions],
            "actor": row.actor, "modal": row.modal, "strength": row.strength,
            "facts": [f.model_dump() for f in row.facts],
            "chunk_ids": [str(c) for c in row.chunk_ids]}


def _row(r: dict[str, Any], title: str) -> ObligationRow:
    return ObligationRow(
        id=r["id"], document_id=r["document_id"], document_title=title, ordinal=r["ordinal"],
        rule=r["rule"], section=r["section"], page=r["page"], text=r["text"],
        lead_in=r["lead_in"], items=tuple(ObligationItem(**i) for i in r["items"]),
        conditions=tuple(ObligationCondition(**c) for c in r["conditions"]),
        actor=r["actor"], modal=r["modal"], strength=r["strength"],
        facts=tuple(TypedFact(**f) for f in r["facts"]),
        chunk_ids=tuple(UUID(c) for c in r["chunk_ids"]))
