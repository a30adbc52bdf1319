"""The obligation register in Postgres: a document's rows read back in order with every field;
another tenant reads none (its repository filter, and row-level security below it); rows
go with their document; registers are built lazily for documents ingested before them."""

from __future__ import annotations

from uuid import UUID, uuid4, uuid5

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import DBAPIError

from regintel.adapters.postgres import tables as t
from regintel.adapters.postgres.database import Database
from regintel.adapters.postgres.documents_repo import PostgresDocumentStore
from regintel.adapters.postgres.obligations_repo import PostgresObligationStore
from regintel.domain.coverage import ObligationCondition, ObligationItem, ObligationRow, TypedFact
from regintel.domain.documents import DocType, NewDocument


async def _document(documents: PostgresDocumentStore, tenant: UUID, title: str) -> UUID:
    return (await documents.create(tenant, NewDocument(
        title=title, doc_type=DocType.REGULATION, content_hash=title,
        file_path=f"files/{title}", original_filename=f"{title}.txt", mime_type="text/plain",
        size_bytes=1))).id


def _rows(document_id: UUID, n: int) -> list[ObligationRow]:
    return [ObligationRow(
        id=uuid5(document_id, str(i)), document_id=document_id, ordinal=i, rule=f"3.1.{i}",
        section="Part 3 › 3.1 Records", text=f"A Firm must keep records {i}.",
        lead_in="A Firm must:", items=(ObligationItem(label="(a)", text="keep them"),),
        conditions=(ObligationCondition(kind="if", text="if it holds client money"),),
        actor="A Firm", modal="must", strength="mandatory",
        facts=(TypedFact(kind="period", text="six years", value=2190.0, unit="day"),),
        chunk_ids=(uuid4(),)) for i in range(n)]


async def test_rows_round_trip_within_their_tenant(database: Database) -> None:
    documents = PostgresDocumentStore(database)
    a, b = await documents.ensure_tenant("acme"), await documents.ensure_tenant("globex")
    doc = await _document(documents, a, "Rules")
    store = PostgresObligationStore(database)
    assert await store.built(a, doc) is None
    rows = _rows(doc, 3)
    await store.replace(a, doc, 7, rows)
    assert await store.built(a, doc) == 7
    back = await store.list(a, doc)
    assert [r.model_dump(exclude={"document_title"}) for r in back] == \
        [r.model_dump(exclude={"document_title"}) for r in rows]
    assert {r.document_title for r in back} == {"Rules"}
    # Replaced, not added to.
    await store.replace(a, doc, 8, rows[:1])
    assert len(await store.list(a, doc)) == 1 and await store.built(a, doc) == 8

    # Tenant b asks for a's document: nothing, and RLS hides the rows even unfiltered.
    assert await store.list(b, doc) == [] and await store.built(b, doc) is None
    async with database.tenant_session(b) as s:
        assert (await s.execute(select(t.obligations))).all() == []
        assert (await s.execute(select(t.obligation_registers))).all() == []
    async with database.tenant_session(a) as s:
        assert len((await s.execute(select(t.obligations))).all()) == 1
    with pytest.raises(DBAPIError):
        async with database.tenant_session(a) as s:
            # Writing a row for another tenant is refused by the policy's WITH CHECK.
            await s.execute(text("INSERT INTO obligations (tenant_id, id, document_id, ordinal, "
                                 "text, modal, strength) VALUES (:b, :id, :d, 0, 'x', 'must', "
                                 "'mandatory')"), {"b": b, "id": uuid4(), "d": doc})

    await documents.delete(a, doc)
    assert await store.list(a, doc) == [] and await store.built(a, doc) is None
