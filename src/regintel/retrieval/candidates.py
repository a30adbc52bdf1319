"""Candidates from both retrievers, merged, with the ranks and scores each one gave."""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID


@dataclass
class Candidate:
    chunk_id: UUID
    dense_rank: int | None = None  # 1-based
    dense_sim: float | None = None
    lexical_rank: int | None = None
    lexical_score: float | None = None

    def rrf(self, k: int) -> float:
        return sum(1.0 / (k + rank) for rank in (self.dense_rank, self.lexical_rank)
                   if rank is not None)


def merge(dense: list[tuple[UUID, float]], lexical: list[tuple[UUID, float]]) -> list[Candidate]:
    by_id: dict[UUID, Candidate] = {}
    for rank, (chunk_id, sim) in enumerate(dense, start=1):
        by_id[chunk_id] = Candidate(chunk_id, dense_rank=rank, dense_sim=sim)
    for rank, (chunk_id, score) in enumerate(lexical, start=1):
        found = by_id.setdefault(chunk_id, Candidate(chunk_id))
        found.lexical_rank, found.lexical_score = rank, score
    return list(by_id.values())
