"""Re-embed stored chunks when the embedding model changes (same vector size)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from uuid import UUID

from regintel.domain.documents import DocStatus
from regintel.errors import ConfigurationError
from regintel.ports.embedder import Embedder
from regintel.ports.library import ChunkIndex, DocumentStore


class Reindexer:
    def __init__(self, documents: DocumentStore, index: ChunkIndex, embedder: Embedder, *,
                 after: Callable[[UUID, UUID], Awaitable[None]] | None = None) -> None:
        """``after(tenant, document)`` runs for each document re-embedded (the container
        queues its ingestion follow-ups: the audit units of the old model are gone)."""
        self._documents = documents
        self._index = index
        self._embedder = embedder
        self._after = after

    async def run(self, tenant_id: UUID, *, everything: bool = False) -> int:
        stored_dim = await self._documents.vector_dimension()
        if stored_dim != self._embedder.dimension:
            raise ConfigurationError(
                f"the chunk index stores {stored_dim}-dimensional vectors; "
                f"{self._embedder.model_name} makes {self._embedder.dimension}",
                hint="a different vector size needs a schema migration of chunks.embedding")
        count = 0
        for document in await self._documents.list(tenant_id):
            stale = (document.embedding_model != self._embedder.model_name
                     or document.embedding_dim != self._embedder.dimension)
            if document.status is not DocStatus.READY or not (everything or stale):
                continue
            chunks = await self._index.document_chunks(tenant_id, document.id)
            vectors = await asyncio.to_thread(self._embedder.embed, [c.text for c in chunks])
            await self._documents.replace_embeddings(
                tenant_id, document.id, [c.id for c in chunks], vectors,
                embedding_model=self._embedder.model_name)
            if self._after is not None:
                await self._after(tenant_id, document.id)
            count += 1
        return count
