"""Embeddings from any OpenAI-compatible ``/v1/embeddings`` endpoint (OpenAI, vLLM, Ollama…)."""

from __future__ import annotations

from collections.abc import Sequence

import httpx
import numpy as np

from regintel.errors import DependencyUnavailable
from regintel.ports.embedder import Vectors


class OpenAICompatibleEmbedder:
    def __init__(self, *, base_url: str, model: str, dimension: int, api_key: str | None = None,
                 batch_size: int = 64, timeout_s: float = 60.0,
                 transport: httpx.BaseTransport | None = None) -> None:
        self._model = model
        self._dimension = dimension
        self._batch_size = batch_size
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(base_url=base_url.rstrip("/"), headers=headers,
                                    timeout=timeout_s, transport=transport)

    @property
    def model_name(self) -> str:
        return self._model

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        rows: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            batch = list(texts[start:start + self._batch_size])
            try:
                response = self._client.post("/embeddings", json={"model": self._model,
                                                                  "input": batch})
                response.raise_for_status()
            except httpx.HTTPError as exc:
                raise DependencyUnavailable("the embeddings endpoint failed",
                                            hint=str(exc)) from exc
            data = sorted(response.json()["data"], key=lambda item: item["index"])
            rows.extend(item["embedding"] for item in data)
        vectors = np.asarray(rows, dtype=np.float32).reshape(len(rows), -1)
        if vectors.shape[1] != self._dimension and len(rows):
            raise DependencyUnavailable(
                f"the embeddings endpoint returned {vectors.shape[1]} dimensions, "
                f"settings say {self._dimension}", hint="set REGINTEL_EMBEDDING__DIMENSION")
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return (vectors / np.where(norms == 0, 1, norms)).astype(np.float32)
