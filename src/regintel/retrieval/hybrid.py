"""Hybrid search: dense (pgvector) and lexical (BM25) candidates, scored by the relevance model."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from uuid import UUID

from regintel.domain.documents import ChunkHit, Document, SearchScope, StoredChunk
from regintel.errors import InvalidRequest
from regintel.ports.embedder import Embedder
from regintel.ports.library import ChunkIndex
from regintel.retrieval.candidates import Candidate, merge
from regintel.retrieval.relevance import RRF_K, RelevanceModel, features, load_model

MAX_QUERY_CHARS = 4000


class HybridRetriever:
    def __init__(self, index: ChunkIndex, embedder: Embedder, *, candidates: int = 50,
                 max_scope_documents: int = 5, model: RelevanceModel | None = None) -> None:
        self._index = index
        self._embedder = embedder
        self._candidates = candidates
        self._max_scope_documents = max_scope_documents
        self._model = model or load_model()

    def check_scope(self, scope: SearchScope) -> None:
        if len(scope.document_ids) > self._max_scope_documents:
            raise InvalidRequest(
                f"{len(scope.document_ids)} documents were tagged; one question can target at "
                f"most {self._max_scope_documents}", hint="remove some tags, or use a set")

    async def embed_query(self, query: str) -> Sequence[float]:
        return (await self.embed_queries([query]))[0]

    async def embed_queries(self, queries: Sequence[str]) -> list[Sequence[float]]:
        """Several queries in one pass of the model (a theme search has dozens)."""
        vectors = await asyncio.to_thread(self._embedder.embed, list(queries))
        return [self._model.adapt_query(v) for v in vectors]

    async def candidates(self, tenant_id: UUID, query: str, scope: SearchScope,
                         vector: Sequence[float] | None = None, *, pool: int = 0,
                         ) -> tuple[list[Candidate], dict[UUID, tuple[StoredChunk, Document]],
                                    list[dict[str, float]]]:
        """The merged candidates, their stored chunks and their feature rows (also what the
        relevance model is trained on)."""
        if vector is None:
            vector = await self.embed_query(query)
        pool = max(pool, self._candidates)
        dense, lexical = await asyncio.gather(
            self._index.dense(tenant_id, vector, pool, scope),
            self._index.lexical(tenant_id, query, pool, scope))
        merged = merge(dense, lexical)
        ids = [c.chunk_id for c in merged]
        fetched, coverage = await asyncio.gather(
            self._index.fetch(tenant_id, ids), self._index.coverage(tenant_id, query, ids))
        merged = [c for c in merged if c.chunk_id in fetched]  # deleted meanwhile
        return merged, fetched, features(query, merged, fetched, coverage)

    async def search(self, tenant_id: UUID, query: str, *, k: int = 10,
                     scope: SearchScope | None = None,
                     vector: Sequence[float] | None = None) -> list[ChunkHit]:
        scope = scope or SearchScope()
        query = query.strip()
        if not query:
            raise InvalidRequest("the question is empty")
        if len(query) > MAX_QUERY_CHARS:
            raise InvalidRequest(f"the question is longer than {MAX_QUERY_CHARS} characters",
                                 hint="shorten it or ask several questions")
        self.check_scope(scope)
        candidates, fetched, rows = await self.candidates(tenant_id, query, scope, vector,
                                                          pool=k)
        scored = sorted(zip(candidates, self._model.probabilities(rows), strict=True),
                        key=lambda pair: (-pair[1], -pair[0].rrf(RRF_K)))
        hits = []
        for candidate, score in scored[:k]:
            chunk, document = fetched[candidate.chunk_id]
            hits.append(ChunkHit.of(chunk, document, round(score, 6),
                                    dense_rank=candidate.dense_rank,
                                    lexical_rank=candidate.lexical_rank))
        return hits
