"""Tenant FAQ entries, matched to a question by embedding (the FAQ triage)."""

from __future__ import annotations

import asyncio
from uuid import UUID

from pydantic import BaseModel
from sqlalchemy import delete, insert, select

from regintel.adapters.postgres import tables as t
from regintel.adapters.postgres.database import Database
from regintel.errors import InvalidRequest, NotFound
from regintel.ports.embedder import Embedder

# A question this close to an FAQ entry's (cosine similarity) is the same question.
FAQ_MIN_SIMILARITY = 0.85


class FaqEntry(BaseModel):
    id: UUID
    question: str
    answer: str


class PostgresFaqStore:
    def __init__(self, database: Database, embedder: Embedder, *,
                 min_similarity: float = FAQ_MIN_SIMILARITY) -> None:
        self._db = database
        self._embedder = embedder
        self._min_similarity = min_similarity

    async def add(self, tenant_id: UUID, question: str, answer: str) -> FaqEntry:
        question, answer = question.strip(), answer.strip()
        if not question or not answer:
            raise InvalidRequest("an FAQ entry needs a question and an answer")
        vector = (await asyncio.to_thread(self._embedder.embed, [question]))[0]
        async with self._db.tenant_session(tenant_id) as s:
            row = (await s.execute(insert(t.faq_entries).values(
                tenant_id=tenant_id, question=question, answer=answer, embedding=list(vector))
                .returning(t.faq_entries.c.id))).scalar_one()
        return FaqEntry(id=row, question=question, answer=answer)

    async def entries(self, tenant_id: UUID) -> list[FaqEntry]:
        async with self._db.tenant_session(tenant_id) as s:
            rows = (await s.execute(select(
                t.faq_entries.c.id, t.faq_entries.c.question, t.faq_entries.c.answer)
                .where(t.faq_entries.c.tenant_id == tenant_id)
                .order_by(t.faq_entries.c.created_at))).mappings().all()
        return [FaqEntry.model_validate(dict(r)) for r in rows]

    async def remove(self, tenant_id: UUID, entry_id: UUID) -> None:
        async with self._db.tenant_session(tenant_id) as s:
            done = await s.execute(delete(t.faq_entries).where(
                t.faq_entries.c.tenant_id == tenant_id, t.faq_entries.c.id == entry_id))
        if done.rowcount == 0:  # type: ignore[attr-defined]
            raise NotFound(f"no FAQ entry {entry_id}")

    async def match(self, tenant_id: UUID, question: str) -> str | None:
        async with self._db.tenant_session(tenant_id) as s:
            any_entry = (await s.execute(select(t.faq_entries.c.id).where(
                t.faq_entries.c.tenant_id == tenant_id).limit(1))).first()
        if any_entry is None:  # most tenants have none: skip the embedding
            return None
        vector = (await asyncio.to_thread(self._embedder.embed, [question]))[0]
        distance = t.faq_entries.c.embedding.cosine_distance(list(vector))
        async with self._db.tenant_session(tenant_id) as s:
            row = (await s.execute(select(t.faq_entries.c.answer, distance.label("d"))
                                   .where(t.faq_entries.c.tenant_id == tenant_id)
                                   .order_by(distance).limit(1))).first()
        if row is None or 1 - float(row[1]) < self._min_similarity:
            return None
        return str(row[0])
