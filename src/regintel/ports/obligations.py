"""Where a document's obligation register is kept (obligations.register)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol
from uuid import UUID

from regintel.domain.coverage import ObligationRow


class ObligationStore(Protocol):
    async def built(self, tenant_id: UUID, document_id: UUID) -> int | None:
        """The extractor version the document's register was built with; None if never."""
        ...

    async def replace(self, tenant_id: UUID, document_id: UUID, version: int,
                      rows: Sequence[ObligationRow]) -> None:
        """The document's register becomes ``rows`` (in one transaction)."""
        ...

    async def list(self, tenant_id: UUID, document_id: UUID) -> list[ObligationRow]:
        """The document's obligations in order (the tenant's only)."""
        ...
