"""The audit's unit vectors in Postgres: read back by a later process (a fresh memo), the
model's own vectors; never another tenant's, another document's or another model's; gone with
their document; and a store that fails costs only the time."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from uuid import UUID

import numpy as np
import numpy.typing as npt
import pytest

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.adapters.postgres.database import Database
from regintel.adapters.postgres.documents_repo import PostgresDocumentStore
from regintel.adapters.postgres.unit_vector_repo import PostgresUnitVectorStore
from regintel.domain.documents import DocType, NewDocument
from regintel.ports.unit_vectors import Key
from regintel.retrieval.unit_vectors import UnitVectors
from tests.chat.test_unit_vectors import RULES, Counting


async def _document(documents: PostgresDocumentStore, tenant: UUID, title: str) -> UUID:
    return (await documents.create(tenant, NewDocument(
        title=title, doc_type=DocType.REGULATION, content_hash=title,
        file_path=f"files/{title}", original_filename=f"{title}.txt", mime_type="text/plain",
        size_bytes=1))).id


async def test_a_later_process_reads_the_vectors_back_within_its_tenant(
        database: Database, embedder: LocalEmbedder) -> None:
    documents = PostgresDocumentStore(database)
    a, b = await documents.ensure_tenant("acme"), await documents.ensure_tenant("globex")
    aml, other = await _document(documents, a, "AML"), await _document(documents, a, "GEN")
    store = PostgresUnitVectorStore(database)
    counting = Counting(embedder)
    first = await UnitVectors(store=store).embed(counting, a, [(aml, t) for t in RULES])
    assert counting.texts == 3

    # A new process: nothing in memory, everything in the database.
    again = await UnitVectors(store=store).embed(counting, a, [(aml, t) for t in RULES])
    assert counting.texts == 3
    np.testing.assert_array_equal(again, first)
    np.testing.assert_allclose(again, embedder.embed(RULES), atol=1e-5)

    # Another tenant, another document of the same tenant: embedded anew, nothing shared.
    b_doc = await _document(documents, b, "AML")
    await UnitVectors(store=store).embed(counting, b, [(b_doc, RULES[0])])
    await UnitVectors(store=store).embed(counting, a, [(other, RULES[0])])
    assert counting.texts == 5
    keys = [(aml, _digest(t)) for t in RULES]
    assert len(await store.load(a, embedder.model_name, keys)) == 3
    assert await store.load(b, embedder.model_name, keys) == {}  # tenant b asks for a's
    assert await store.load(a, "another-model", keys) == {}

    # Deleting the document takes its vectors; the other tenant's stay.
    await documents.delete(a, aml)
    assert await store.load(a, embedder.model_name, keys) == {}
    assert len(await store.load(b, embedder.model_name, [(b_doc, _digest(RULES[0]))])) == 1
    # Forgetting one document's vectors keeps the others'.
    b_gen = await _document(documents, b, "GEN")
    await UnitVectors(store=store).embed(counting, b, [(b_gen, RULES[1])])
    await store.forget(b, b_gen)
    assert await store.load(b, embedder.model_name, [(b_gen, _digest(RULES[1]))]) == {}
    assert len(await store.load(b, embedder.model_name, [(b_doc, _digest(RULES[0]))])) == 1
    await store.forget(b)
    assert await store.load(b, embedder.model_name, [(b_doc, _digest(RULES[0]))]) == {}


async def test_a_damaged_row_is_embedded_again(database: Database,
                                               embedder: LocalEmbedder) -> None:
    documents = PostgresDocumentStore(database)
    tenant = await documents.ensure_tenant("acme")
    aml = await _document(documents, tenant, "AML")
    store = PostgresUnitVectorStore(database)
    await store.save(tenant, embedder.model_name,
                     {(aml, _digest(RULES[0])): np.ones(3, dtype=np.float32)})
    counting = Counting(embedder)
    vectors = await UnitVectors(store=store).embed(counting, tenant, [(aml, RULES[0])])
    assert counting.texts == 1
    np.testing.assert_allclose(vectors, embedder.embed(RULES[:1]), atol=1e-5)
    repaired = await store.load(tenant, embedder.model_name, [(aml, _digest(RULES[0]))])
    np.testing.assert_array_equal(repaired[(aml, _digest(RULES[0]))], vectors[0])


class _Broken:
    async def load(self, tenant_id: UUID, model: str,
                   keys: Sequence[Key]) -> dict[Key, npt.NDArray[np.float32]]:
        raise ConnectionError("database went away")

    async def save(self, tenant_id: UUID, model: str,
                   vectors: dict[Key, npt.NDArray[np.float32]]) -> None:
        raise ConnectionError("database went away")


async def test_a_failing_store_costs_only_the_time(embedder: LocalEmbedder,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    counting, memo = Counting(embedder), UnitVectors(store=_Broken())
    tenant, aml = UUID(int=1), UUID(int=2)
    with caplog.at_level(logging.WARNING):
        vectors = await memo.embed(counting, tenant, [(aml, t) for t in RULES])
    np.testing.assert_allclose(vectors, embedder.embed(RULES), atol=1e-5)
    assert counting.texts == 3 and len(memo) == 3  # still kept for this process
    assert "unreadable" in caplog.text and "not stored" in caplog.text


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()
