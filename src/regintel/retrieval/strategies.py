"""The retrieval strategy of each action (policypal spec, "retrieval per action")."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from uuid import UUID

from regintel.domain.documents import ChunkHit, SearchScope, StoredChunk
from regintel.ports.library import ChunkIndex
from regintel.retrieval import outline
from regintel.retrieval.hybrid import HybridRetriever


async def per_document(retriever: HybridRetriever, tenant_id: UUID, query: str,
                       document_ids: Sequence[UUID], *, per_doc: int = 3) -> list[ChunkHit]:
    """Top ``per_doc`` chunks from each tagged document, so no document is crowded out."""
    retriever.check_scope(SearchScope(document_ids=tuple(document_ids)))
    vector = await retriever.embed_query(query)
    batches = await asyncio.gather(*(
        retriever.search(tenant_id, query, k=per_doc, vector=vector,
                         scope=SearchScope(document_ids=(doc_id,)))
        for doc_id in document_ids))
    return [hit for batch in batches for hit in batch]


async def adaptive_k(retriever: HybridRetriever, tenant_id: UUID, query: str,
                     document_ids: Sequence[UUID], *, threshold: float, min_per_doc: int = 3,
                     max_per_doc: int = 5, max_total: int = 15) -> list[ChunkHit]:
    """Per document: its best ``min_per_doc`` chunks always, plus up to ``max_per_doc`` in all
    while they score at least ``threshold``. The ``max_total`` budget is filled with the
    guaranteed chunks first and the strongest extras after, so no document is crowded out."""
    batches = await per_document(retriever, tenant_id, query, document_ids, per_doc=max_per_doc)
    guaranteed: list[ChunkHit] = []
    extras: list[ChunkHit] = []
    seen: dict[UUID, int] = {}
    for hit in batches:  # best-first within each document
        taken = seen.get(hit.document_id, 0)
        seen[hit.document_id] = taken + 1
        if taken < min_per_doc:
            guaranteed.append(hit)
        elif hit.score >= threshold:
            extras.append(hit)
    # Every document keeps its minimum; the rest of the budget goes to the strongest extras.
    room = max(0, max_total - len(guaranteed))
    kept = guaranteed + sorted(extras, key=lambda h: -h.score)[:room]
    return sorted(kept, key=lambda h: -h.score)


def stratified_size(total: int, *, share: float = 0.175, minimum: int = 10,
                    maximum: int = 30) -> int:
    """15–20 % of the chunks (17.5 %), at least ``minimum``, at most ``maximum``."""
    return min(total, max(minimum, min(maximum, math.ceil(total * share))))


async def stratified_sample(index: ChunkIndex, tenant_id: UUID,
                            document_id: UUID) -> list[StoredChunk]:
    """Chunks spread evenly over the whole document (for summaries and policy themes): the
    middle chunk of each of n equal strata, so the start, middle and end are all represented."""
    return stratify(await index.document_chunks(tenant_id, document_id))


async def outline_sample(index: ChunkIndex, tenant_id: UUID,
                         document_id: UUID) -> list[StoredChunk]:
    """For a whole-document summary: chunks of each of the document's own parts
    (retrieval.outline), in order; ``stratify`` when its chunks record no headings."""
    chunks = await index.document_chunks(tenant_id, document_id)
    level = outline.level_of(chunks)
    if level is None:
        return stratify(chunks)
    wanted = set(outline.sample(chunks, level, per_part=OUTLINE_PER_PART,
                                cap=OUTLINE_MAX_CHUNKS))
    return [c for c in chunks if c.ordinal in wanted]


OUTLINE_PER_PART = 3
OUTLINE_MAX_CHUNKS = 60


def stratify(chunks: Sequence[StoredChunk]) -> list[StoredChunk]:
    """``stratified_sample`` of chunks already fetched."""
    n = stratified_size(len(chunks))
    if n == 0:
        return []
    return [chunks[min(len(chunks) - 1, int((i + 0.5) * len(chunks) / n))] for i in range(n)]


async def by_theme(retriever: HybridRetriever, tenant_id: UUID, themes: Sequence[str],
                   target_ids: Sequence[UUID], *, per_theme: int = 3,
                   queries: Sequence[str] | None = None,
                   ) -> dict[str, dict[UUID, list[ChunkHit]]]:
    """For compare and audit: the best chunks for each theme within each target document.
    ``queries``, one per theme, are what is searched when a theme is worded otherwise than
    the targets word it (the results stay keyed by theme)."""
    retriever.check_scope(SearchScope(document_ids=tuple(target_ids)))
    asked = list(queries or themes)
    vectors = await retriever.embed_queries(asked) if asked else []
    results: dict[str, dict[UUID, list[ChunkHit]]] = {}
    for theme, query, vector in zip(themes, asked, vectors, strict=True):
        batches = await asyncio.gather(*(
            retriever.search(tenant_id, query, k=per_theme, vector=vector,
                             scope=SearchScope(document_ids=(target,)))
            for target in target_ids))
        results[theme] = dict(zip(target_ids, batches, strict=True))
    return results
