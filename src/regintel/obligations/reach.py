"""The rules a pasted text is read against: those the library's own search finds for its
sentences, with the other rules of their sections - not every rule of the regulation.

An email or a draft is a few sentences on one or two subjects. Read against a whole register,
its sentences meet rules of other subjects on a shared phrase ("may be extended by two
further months" against a board's dispute procedure), and each act it sets aside is judged
against the nearest of hundreds of duties by the closeness of a few words to a rule. The
search reads a question against passages better than that closeness does (it is what the
answers are built on), and a text's subject is in all of its sentences, so the rules a
sentence's act is read against are the ones its text's sentences reach."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from uuid import UUID

import numpy as np

from regintel.domain.documents import ChunkHit, SearchScope
from regintel.obligations.matrix import Regulation
from regintel.retrieval.abbreviations import expand
from regintel.retrieval.hybrid import MAX_QUERY_CHARS, HybridRetriever

HITS = 5  # passages per sentence…
RELATIVE = 0.25  # …that score at least this share of the sentence's best passage
# Within reach the subject is the search's finding, so a rule is read against a sentence on
# less closeness than across a whole register: a fact stated against a rule's (a period, a
# frequency), and an act set aside against a duty.
RELATED = 0.3
SET_ASIDE = 0.28
CONCURRENT_SEARCHES = 4


async def in_reach(retriever: HybridRetriever, tenant: UUID, regulation: Regulation,
                   sentences: Sequence[str]) -> Regulation:
    """The regulation's rows the sentences' searches reach: the rows of each passage found,
    and the other rows of its section."""
    queries = [expand(s)[:MAX_QUERY_CHARS] for s in sentences if s.strip()]
    if not queries or not regulation.rows:
        return subset(regulation, [])
    scope = SearchScope(document_ids=(regulation.document_id,))
    vectors = await retriever.embed_queries(queries)
    # A long text has dozens of sentences: a few searches at a time, not one per connection.
    gate = asyncio.Semaphore(CONCURRENT_SEARCHES)

    async def search(query: str, vector: Sequence[float]) -> list[ChunkHit]:
        async with gate:
            return await retriever.search(tenant, query, k=HITS, scope=scope, vector=vector)

    found = await asyncio.gather(*(search(q, v) for q, v in zip(queries, vectors, strict=True)))
    # A passage far below the sentence's best is another subject's that shares a phrase.
    kept = [hit for hits in found for hit in hits if hit.score >= RELATIVE * hits[0].score]
    chunks = {hit.chunk_id for hit in kept}
    rows = regulation.rows
    sections = {r.section for r in rows if r.section and chunks.intersection(r.chunk_ids)}
    sections |= {hit.section for hit in kept if hit.section}
    return subset(regulation, [i for i, r in enumerate(rows)
                               if chunks.intersection(r.chunk_ids) or r.section in sections])


def subset(regulation: Regulation, kept: Sequence[int]) -> Regulation:
    """The regulation with only the rows ``kept`` (in order), their vectors and items'."""
    offsets = np.cumsum([0, *(len(r.items) for r in regulation.rows)])
    items = [j for i in kept for j in range(offsets[i], offsets[i + 1])]
    return Regulation(regulation.document_id, regulation.title,
                      [regulation.rows[i] for i in kept], regulation.vectors[list(kept)],
                      regulation.item_vectors[items])
