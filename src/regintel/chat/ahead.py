"""The work a turn starts ahead of its node (``chat.prefetch``), as the turn's dependencies
hold it: here, below both, so that ``TurnDeps`` can name it without importing the prefetch."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

from regintel.chat.engine import IntentGuess
from regintel.domain.documents import ChunkHit


@dataclass(frozen=True)
class Searched:
    hits: list[ChunkHit]
    injected: list[bool]  # per hit: carries instructions aimed at the assistant


@dataclass
class Ahead:
    question: str
    document_ids: tuple[UUID, ...]
    set_ids: tuple[UUID, ...]
    search: asyncio.Task[Searched] | None = None
    intent: asyncio.Task[IntentGuess] | None = None

    def same_search(self, question: str, document_ids: Sequence[UUID],
                    set_ids: Sequence[UUID]) -> bool:
        return (question, tuple(document_ids), tuple(set_ids)) == (
            self.question, self.document_ids, self.set_ids)
