"""What each findings call of the model's policy audit is shown (chat/llm/audit.py): per
theme, the best passages of every target, ``BATCH`` to a call, beside the whole policy when it
fits the audit model's context, else beside the policy passages nearest the theme and each
target passage. research/experiments/audit_reach.py measures how many planted gaps that lets a
model find at best; ``DEPTH`` and ``BATCH`` are chosen there."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

from regintel.domain.documents import ChunkHit, Document, SearchScope, StoredChunk
from regintel.ports.library import ChunkIndex
from regintel.retrieval.hybrid import HybridRetriever

# Passages per target per theme, and target passages per findings call. research/experiments/
# audit_reach.py, on the development policies' 160 planted gaps, eight generic themes
# standing in for a model's, against two rulebooks: the share a call could
# find (its rule shown, and a contradiction's policy clause beside it) is 0.512 at the spec's 3
# passages, 0.831 at 12, 0.838 at 16, 0.894 at 24 with the whole policy shown (the policy's
# own part headings as themes: 0.394, 0.794, 0.844, 0.881); 0.294 / 0.544 / 0.588 / 0.650
# with only its nearest passages. 24 is the least depth measured past 0.85.
DEPTH = 24
BATCH = 12
PER_SOURCE = 3             # a policy too long to show whole: the theme's best passages
PER_PASSAGE_SOURCE = 1     # and the policy passage nearest each target passage shown
CHARS_PER_TOKEN = 4        # of English prose, to size a policy against a context window
WHOLE_SHARE = 4            # a whole policy is shown when it fits 1/WHOLE_SHARE of the context
MAX_PASSAGE_CHARS = 2000   # of a passage shown to the model (quotes come from the whole chunk)


SMALL_PASSAGE_CHARS = 600  # of a passage shown to a small-window model
SMALL_THEMES = 3           # themes a small-window audit checks (one call each)
_ITEM_OVERHEAD = 80        # a passage's id and place


@dataclass(frozen=True)
class Window:
    """An audit planned for a small context window (a local model's few thousand tokens):
    shorter passages, one findings call per theme holding what fits, fewer themes, so that no
    call overflows the window and the audit ends in reasonable time on a CPU."""

    batch: int
    passage_chars: int = SMALL_PASSAGE_CHARS
    themes: int = SMALL_THEMES

    @classmethod
    def for_context(cls, evidence_chars: int) -> Window | None:
        """None when the full plan fits: ``BATCH`` target passages and as many policy ones
        beside them, at full length, in ``evidence_chars``."""
        full = (2 * BATCH + PER_SOURCE) * (MAX_PASSAGE_CHARS + _ITEM_OVERHEAD)
        if evidence_chars >= full:
            return None
        # Half the window for the theme's target passages, half for the policy passages
        # nearest them (one each) and the theme's own best one.
        per_passage = SMALL_PASSAGE_CHARS + _ITEM_OVERHEAD
        return cls(batch=max(1, evidence_chars // per_passage // 2 - 1))

    def sample(self, evidence_chars: int) -> int:
        """Policy passages shown to extract the themes."""
        return max(2, evidence_chars // (self.passage_chars + _ITEM_OVERHEAD))


@dataclass(frozen=True)
class Sentence:
    """A sentence of the pasted text (text mode's source passages)."""

    text: str


Source = ChunkHit | Sentence


@dataclass(frozen=True)
class Shown:
    """What one findings call was shown: ``S{n}`` is ``sources[n - 1]``, ``T{n}`` is
    ``targets[n - 1]``."""

    theme: str | None
    sources: tuple[Source, ...]
    targets: tuple[ChunkHit, ...]


def whole_source(chunks: Sequence[StoredChunk], source: Document,
                 context_tokens: int, window: Window | None = None) -> list[ChunkHit] | None:
    """The policy's passages (``chunks``, in order), when shown whole they fit
    ``1/WHOLE_SHARE`` of a context of ``context_tokens``; else None."""
    limit = window.passage_chars if window else None
    shown = sum(len(shown_text(c.text, limit)) for c in chunks)
    if not chunks or shown > context_tokens * CHARS_PER_TOKEN // WHOLE_SHARE:
        return None
    return [ChunkHit.of(c, source, 1.0) for c in chunks]


async def plan_theme(retriever: HybridRetriever, index: ChunkIndex, tenant: UUID, theme: str,
                     source: Document, targets: Sequence[Document],
                     whole: Sequence[ChunkHit] | None = None,
                     window: Window | None = None) -> list[Shown]:
    """What the findings calls of one theme are shown: the ``DEPTH`` best passages of each
    target (grouped by target, in the order of ``targets``) cut into batches of ``BATCH``;
    with each batch, the ``whole`` policy, or else the theme's ``PER_SOURCE`` best policy
    passages and, for each of the batch's passages, the ``PER_PASSAGE_SOURCE`` policy
    passages nearest it."""
    vector = await retriever.embed_query(theme)
    # A small window: one call per theme, its passages shared among the targets.
    depth = max(1, window.batch // len(targets)) if window else DEPTH
    batch = window.batch if window else BATCH
    per_source = 1 if window else PER_SOURCE
    searches = [(t.id, depth) for t in targets] + ([] if whole else [(source.id, per_source)])
    results = await asyncio.gather(*(
        retriever.search(tenant, theme, k=k, vector=vector,
                         scope=SearchScope(document_ids=(doc_id,))) for doc_id, k in searches))
    hits = [h for target_hits in results[:len(targets)] for h in target_hits]
    policy = [] if whole else results[len(targets)]
    starts = range(0, len(hits), batch)
    if whole:
        return [Shown(theme=theme, sources=tuple(whole), targets=tuple(hits[i:i + batch]))
                for i in starts]
    nearest = await _closest_policy(retriever, index, tenant, source, hits)
    return [Shown(theme=theme, targets=tuple(hits[i:i + batch]), sources=tuple(_distinct(
        [*policy, *(h for near in nearest[i:i + batch] for h in near)]))) for i in starts]


async def _closest_policy(retriever: HybridRetriever, index: ChunkIndex, tenant: UUID,
                          source: Document, hits: Sequence[ChunkHit]) -> list[list[ChunkHit]]:
    """For each hit, the policy passages nearest the whole hit, by their vectors alone: one
    pass of the model for all, then one vector search each. (Not its first sentence: that is
    often a heading, and the duty a policy contradicts sits lower in the passage.)"""
    if not hits:
        return []
    queries = [shown_text(h.text) for h in hits]
    vectors = await retriever.embed_queries(queries)
    scope = SearchScope(document_ids=(source.id,))
    ranked = await asyncio.gather(*(index.dense(tenant, v, PER_PASSAGE_SOURCE, scope)
                                    for v in vectors))
    stored = await index.fetch(tenant, list({cid for rows in ranked for cid, _ in rows}))
    return [[ChunkHit.of(*stored[cid], max(0.0, min(1.0, sim))) for cid, sim in rows
             if cid in stored] for rows in ranked]


def _distinct(hits: Sequence[ChunkHit]) -> list[ChunkHit]:
    """Each passage once, where it first came."""
    return list({h.chunk_id: h for h in hits}.values())


def shown_text(text: str, limit: int | None = None) -> str:
    limit = limit or MAX_PASSAGE_CHARS
    text = text.strip()
    return text if len(text) <= limit else text[:limit] + " …"
