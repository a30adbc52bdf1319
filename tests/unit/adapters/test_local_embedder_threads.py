"""The local embedder runs a query on one intra-op thread and a batch on every core. The
setting belongs to the calling thread: a query in a worker thread leaves a batch running on
another thread its cores."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import torch

from regintel.adapters.embeddings.local import LocalEmbedder


def test_a_query_uses_one_thread_without_touching_other_threads(
        embedder: LocalEmbedder) -> None:
    with ThreadPoolExecutor(1) as worker:
        def query() -> tuple[int, float]:
            vector = embedder.embed(["How long must CDD records be kept?"])[0]
            return torch.get_num_threads(), float(np.linalg.norm(vector))

        threads, norm = worker.submit(query).result()
        assert threads == 1 and abs(norm - 1.0) < 1e-4

        def batch() -> int:
            embedder.embed([f"Rule {i}: a Relevant Person must keep records. " * 30
                            for i in range(9)])
            return torch.get_num_threads()

        assert worker.submit(batch).result() == embedder._threads
    # Every call sets its own thread's count: a query, then a batch, on the same thread.
    embedder.embed(["What is an MLRO?"])
    assert torch.get_num_threads() == 1
    embedder.embed([f"Rule {i}: records must be kept for six years. " * 30 for i in range(9)])
    assert torch.get_num_threads() == embedder._threads
