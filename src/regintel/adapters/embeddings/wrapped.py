"""An embedder that passes through to another, for wrappers that only change ``embed``
(the query memo, the benchmarks' timing and memoising wrappers)."""

from __future__ import annotations

from regintel.ports.embedder import Embedder


class WrappedEmbedder:
    def __init__(self, inner: Embedder) -> None:
        self._inner = inner

    @property
    def model_name(self) -> str:
        return self._inner.model_name

    @property
    def dimension(self) -> int:
        return self._inner.dimension
