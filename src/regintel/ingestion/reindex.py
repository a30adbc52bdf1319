"""Re-embed stored chunks when the embedding model changes (same vector size)."""

from __future__ import annotations

import asyncio
from uuid import UUID

from regintel.domain.documents import DocStatus
from regintel.errors import ConfigurationError
from regintel.ports.embedder import Embedder
from regintel.ports.library import ChunkIndex, DocumentStore


class Reindexer:
    def __init__(self, documents: DocumentStore, index: ChunkIndex, embedder: Embedder) -> None:
        self._documents = documents
        self._index = index
        self._embedder = embedder

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
            count += 1
        return count
