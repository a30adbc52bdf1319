"""The OpenAI-compatible embeddings adapter against the documented wire format, replayed
through an in-process transport (no network)."""

from __future__ import annotations

import json

import httpx
import numpy as np
import pytest

from regintel.adapters.embeddings.openai_compatible import OpenAICompatibleEmbedder
from regintel.errors import DependencyUnavailable


def _replay(seen: list[dict[str, object]], *, dims: int = 3,
            status: int = 200) -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        seen.append({"path": request.url.path, "auth": request.headers.get("authorization"),
                     "body": body})
        if status != 200:
            return httpx.Response(status, json={"error": {"message": "rate limited",
                                                          "type": "rate_limit_error"}})
        # Documented shape: data[] with index + embedding, returned in any order.
        data = [{"object": "embedding", "index": i, "embedding": [float(i + 1)] * dims}
                for i in range(len(body["input"]))][::-1]
        return httpx.Response(200, json={"object": "list", "data": data, "model": body["model"],
                                         "usage": {"prompt_tokens": 5, "total_tokens": 5}})
    return httpx.MockTransport(handler)


def test_batches_orders_and_normalises() -> None:
    seen: list[dict[str, object]] = []
    embedder = OpenAICompatibleEmbedder(base_url="http://models.local/v1", model="text-emb",
                                        dimension=3, api_key="k-123", batch_size=2,
                                        transport=_replay(seen))
    vectors = embedder.embed(["a", "b", "c"])
    assert vectors.shape == (3, 3) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert [s["path"] for s in seen] == ["/v1/embeddings", "/v1/embeddings"]
    assert seen[0]["auth"] == "Bearer k-123"
    assert seen[0]["body"] == {"model": "text-emb", "input": ["a", "b"]}


def test_wrong_dimension_is_named() -> None:
    embedder = OpenAICompatibleEmbedder(base_url="http://models.local/v1", model="m",
                                        dimension=384, transport=_replay([], dims=3))
    with pytest.raises(DependencyUnavailable, match="returned 3 dimensions"):
        embedder.embed(["a"])


def test_error_body_becomes_dependency_unavailable() -> None:
    embedder = OpenAICompatibleEmbedder(base_url="http://models.local/v1", model="m",
                                        dimension=3, transport=_replay([], status=429))
    with pytest.raises(DependencyUnavailable, match="embeddings endpoint failed"):
        embedder.embed(["a"])
