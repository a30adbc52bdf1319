"""The query memo returns the model's own vectors, computes each text once, and leaves batches
alone (a counting wrapper around the real MiniLM embedder)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.adapters.embeddings.query_cache import QueryCachingEmbedder
from regintel.ports.embedder import Vectors


class Counting:
    def __init__(self, inner: LocalEmbedder) -> None:
        self.inner = inner
        self.calls: list[int] = []
        self.model_name = inner.model_name
        self.dimension = inner.dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.calls.append(len(texts))
        return self.inner.embed(texts)


def test_queries_are_embedded_once_and_batches_pass_through(embedder: LocalEmbedder) -> None:
    counting = Counting(embedder)
    cached = QueryCachingEmbedder(counting, size=2)
    first = cached.embed(["What is CDD?"])
    first[0, 0] = 42.0  # a caller mutating its copy must not poison the memo
    again = cached.embed(["What is CDD?"])
    assert counting.calls == [1]
    assert np.allclose(again, embedder.embed(["What is CDD?"]))
    cached.embed(["a", "b"])
    cached.embed(["a", "b"])
    assert counting.calls == [1, 2, 2]
    cached.embed(["second"])
    cached.embed(["third"])  # evicts the oldest
    cached.embed(["What is CDD?"])
    assert counting.calls == [1, 2, 2, 1, 1, 1]
    assert cached.dimension == embedder.dimension
