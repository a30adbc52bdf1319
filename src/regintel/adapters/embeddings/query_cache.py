"""A memo for query embeddings. One chat turn embeds its question several times (relevance
triage, the FAQ match, retrieval) and every embedding costs ~15 ms of CPU on this class of
machine; the model is deterministic, so the same text always gives the same vector. Only
single-text calls (queries) are cached; batches (ingestion) pass straight through."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from regintel.adapters.embeddings.wrapped import WrappedEmbedder
from regintel.ports.embedder import Embedder, Vectors


class QueryCachingEmbedder(WrappedEmbedder):
    def __init__(self, inner: Embedder, *, size: int = 512) -> None:
        super().__init__(inner)
        self._size = size
        self._cache: OrderedDict[str, Vectors] = OrderedDict()
        self._lock = threading.Lock()  # callers embed from worker threads

    def embed(self, texts: Sequence[str]) -> Vectors:
        if len(texts) != 1:
            return self._inner.embed(texts)
        text = texts[0]
        with self._lock:
            hit = self._cache.get(text)
            if hit is not None:
                self._cache.move_to_end(text)
                return hit.copy()
        vectors = self._inner.embed(texts)
        with self._lock:
            self._cache[text] = np.array(vectors, copy=True)
            if len(self._cache) > self._size:
                self._cache.popitem(last=False)
        return vectors
