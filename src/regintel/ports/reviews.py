"""Where the officer's review decisions live: an append-only trail per tenant (issue 47)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol
from uuid import UUID

from regintel.domain.review import DecisionRecord, ReviewDecision

RowRef = tuple[str, str]  # (regulation_key, obligation_key): a row of any audit of a policy


class ReviewStore(Protocol):
    async def record(self, tenant_id: UUID, entry: DecisionRecord) -> ReviewDecision:
        """Appends a decision; the one it supersedes stays in the history."""
        ...

    async def latest(self, tenant_id: UUID, policy_key: str,
                     regulation_keys: Sequence[str]) -> dict[RowRef, ReviewDecision]:
        """The decision in force on each decided row of the policy against those
        regulations: the latest one per (regulation_key, obligation_key)."""
        ...

    async def on_regulation(self, tenant_id: UUID,
                            regulation_key: str) -> list[ReviewDecision]:
        """The decision in force on each decided row of every policy against that
        regulation: the latest per (policy_key, obligation_key)."""
        ...

    async def history(self, tenant_id: UUID, policy_key: str, regulation_key: str,
                      obligation_key: str) -> list[ReviewDecision]:
        """Every decision on one row, oldest first."""
        ...
