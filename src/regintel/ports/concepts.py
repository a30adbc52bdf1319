"""Ports of the concept-graph service beyond the graph store itself: where conversation
context lives (Postgres), and where public regulatory text for enrichment comes from."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from regintel.domain.concepts import ConversationContext, ConversationIdentity


class ConversationContextStore(Protocol):
    """The spec's store: ``load`` returns None when nothing is stored yet; both may raise
    ``DependencyUnavailable``, and callers treat that as an empty context / a skipped save."""

    async def load(self, identity: ConversationIdentity) -> ConversationContext | None: ...

    async def save(self, identity: ConversationIdentity, ctx: ConversationContext) -> None: ...

    async def purge_inactive(self, *, older_than_days: int) -> int:
        """Delete contexts not saved for that many days; returns how many went."""
        ...


@dataclass(frozen=True)
class PublicPassage:
    """A passage of public regulatory text, with the ``:Section`` it belongs to."""

    section_key: str
    document: str
    clause: str
    title: str
    text: str
    url: str | None = None
    jurisdiction: str | None = None


class PublicPassageSource(Protocol):
    async def passages(self, terms: Sequence[str], *, limit: int) -> list[PublicPassage]:
        """Passages mentioning any of ``terms`` (case-insensitive), from public text only."""
        ...
