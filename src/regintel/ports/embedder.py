"""Embedding port. Implementations are synchronous and CPU/IO bound; callers run them off the
event loop (``asyncio.to_thread``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]


class Embedder(Protocol):
    @property
    def model_name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Vectors:
        """L2-normalised vectors, one row per text, in input order."""
