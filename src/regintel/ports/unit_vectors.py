"""Where the audit's unit vectors outlast the process (retrieval.unit_vectors): keyed by
tenant, embedding model, document and a digest of the unit's text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol
from uuid import UUID

import numpy as np
import numpy.typing as npt

Key = tuple[UUID, bytes]  # (document id, SHA-256 digest of the text)


class UnitVectorStore(Protocol):
    async def load(self, tenant_id: UUID, model: str,
                   keys: Sequence[Key]) -> dict[Key, npt.NDArray[np.float32]]:
        """The vectors kept for ``keys`` (those not kept are absent), the tenant's only."""
        ...

    async def save(self, tenant_id: UUID, model: str,
                   vectors: dict[Key, npt.NDArray[np.float32]]) -> None:
        """Keeps ``vectors``; a key kept already has its vector replaced."""
        ...
