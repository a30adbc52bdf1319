"""Vectors of a document's units (a regulation's obligations, a policy's clauses, the
sentences answers rank), kept between turns in this process. A regulation's obligations are
the same text audit after audit (a new version is another document), and embedding them is
most of a first audit's time, so a second audit against the same regulation embeds only what
it has not read before; so are a policy's clauses, audited again or against other
regulations. Keys carry the tenant and the document - no tenant's audit is answered from
another's - and a digest of the text rather than the text; memory is bounded, the least
recently used going first. With a store (Postgres, ``unit_vectors``) they outlast the
process: a server restarted, or each ``regintel ask`` (a process of its own), reads back
what an earlier audit, or the document's preparation after its ingestion
(obligations.auditor.prepare, chat.offline.answer_sentences), embedded. A store that fails
costs only the time: the units are embedded, the failure logged."""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections import OrderedDict
from collections.abc import Sequence
from uuid import UUID

import numpy as np
import numpy.typing as npt

from regintel.ports.embedder import Embedder, Vectors
from regintel.ports.unit_vectors import UnitVectorStore

log = logging.getLogger(__name__)

# About 31 MB of 384-dimension float32 vectors: the obligations of some 25 rulebooks.
CAPACITY = 20_000

_Key = tuple[UUID, UUID, str, bytes]


class UnitVectors:
    """Thread-compatible, not thread-safe: used from one event loop (the embedding itself
    runs in a worker thread, the bookkeeping does not)."""

    def __init__(self, capacity: int = CAPACITY, store: UnitVectorStore | None = None) -> None:
        self._capacity = capacity
        self._store = store
        self._vectors: OrderedDict[_Key, npt.NDArray[np.float32]] = OrderedDict()
        # The texts being embedded right now, each by the call's batch that embeds it.
        self._pending: dict[_Key, asyncio.Future[dict[_Key, npt.NDArray[np.float32]]]] = {}

    def __len__(self) -> int:
        return len(self._vectors)

    async def embed(self, embedder: Embedder, tenant_id: UUID,
                    units: Sequence[tuple[UUID, str]]) -> Vectors:
        """The vectors of ``units`` ((document id, text) pairs), in order; only the texts
        kept neither here nor in the store are embedded, each once - also across calls at
        the same time: a text another call is embedding (an audit started while its
        document's preparation runs, two audits of one regulation) is awaited from it."""
        keys = [(tenant_id, document_id, embedder.model_name,
                 hashlib.sha256(text.encode()).digest()) for document_id, text in units]
        # Read before the await: another audit may evict while this one embeds.
        kept = {key: self._vectors[key] for key in keys if key in self._vectors}
        wanted = {key: text for key, (_, text) in zip(keys, units, strict=True)
                  if key not in kept}
        others = {self._pending[key] for key in wanted if key in self._pending}
        mine = {key: text for key, text in wanted.items() if key not in self._pending}
        batch: asyncio.Future[dict[_Key, npt.NDArray[np.float32]]] = \
            asyncio.get_running_loop().create_future()
        for key in mine:
            self._pending[key] = batch
        try:
            found = await self._fetch(embedder, tenant_id, mine)
            batch.set_result(found)
        except BaseException:
            batch.cancel()  # those awaiting it embed their texts themselves
            raise
        finally:
            for key in mine:
                if self._pending.get(key) is batch:
                    del self._pending[key]
        kept.update(found)
        if others:
            await asyncio.wait(others)
            for other in others:
                if not other.cancelled():
                    kept.update({key: v for key, v in other.result().items() if key in wanted})
        left = {key: text for key, text in wanted.items() if key not in kept}
        kept.update(await self._fetch(embedder, tenant_id, left))
        for key in kept:
            self._vectors[key] = kept[key]
            self._vectors.move_to_end(key)
        while len(self._vectors) > self._capacity:
            self._vectors.popitem(last=False)
        if not keys:
            return np.zeros((0, embedder.dimension), dtype=np.float32)
        return np.stack([kept[key] for key in keys])

    async def _fetch(self, embedder: Embedder, tenant_id: UUID,
                     texts: dict[_Key, str]) -> dict[_Key, npt.NDArray[np.float32]]:
        """The vectors of ``texts``: read from the store, the rest embedded and stored."""
        if not texts:
            return {}
        found = await self._load(tenant_id, embedder, list(texts))
        missing = {key: text for key, text in texts.items() if key not in found}
        if missing:
            fresh = await asyncio.to_thread(embedder.embed, list(missing.values()))
            embedded = dict(zip(missing, fresh, strict=True))
            await self._save(tenant_id, embedder.model_name, embedded)
            found.update(embedded)
        return found

    async def _load(self, tenant_id: UUID, embedder: Embedder,
                    keys: list[_Key]) -> dict[_Key, npt.NDArray[np.float32]]:
        if self._store is None or not keys:
            return {}
        try:
            found = await self._store.load(tenant_id, embedder.model_name,
                                           [_stored(key) for key in keys])
        except Exception:  # the vectors are embedded instead: slower, never wrong
            log.warning("unit vector store unreadable; embedding the units", exc_info=True)
            return {}
        # A stored vector of the wrong size (a damaged row) is embedded again, not used.
        fit: dict[_Key, npt.NDArray[np.float32]] = {}
        damaged = 0
        for key in keys:
            vector = found.get(_stored(key))
            if vector is not None and vector.shape == (embedder.dimension,):
                fit[key] = vector
            elif vector is not None:
                damaged += 1
        if damaged:
            log.warning("%d stored unit vectors of the wrong size; embedding them again",
                        damaged)
        return fit

    async def _save(self, tenant_id: UUID, model: str,
                    fresh: dict[_Key, npt.NDArray[np.float32]]) -> None:
        if self._store is None or not fresh:
            return
        try:
            await self._store.save(tenant_id, model,
                                   {_stored(key): vector for key, vector in fresh.items()})
        except Exception:  # kept in memory all the same; a later process embeds them again
            log.warning("unit vectors not stored; kept for this process only", exc_info=True)


def _stored(key: _Key) -> tuple[UUID, bytes]:
    """A key as the store has it (under its tenant and model): document and digest."""
    _, document_id, _, digest = key
    return document_id, digest
