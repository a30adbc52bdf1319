"""Ranking metrics as trec_eval computes them (binary relevance, cut at k)."""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from typing import TypeVar

K = TypeVar("K")


def recall_at(ranked: Sequence[K], relevant: Collection[K], k: int = 10) -> float:
    """trec_eval ``recall_k``: share of the relevant items found in the top k."""
    if not relevant:
        return 0.0
    return len(set(ranked[:k]) & set(relevant)) / len(relevant)


def average_precision_at(ranked: Sequence[K], relevant: Collection[K], k: int = 10) -> float:
    """trec_eval ``map_cut_k``: precision at each relevant hit in the top k, summed, divided by
    the number of relevant items (all of them, not only those reachable in k)."""
    if not relevant:
        return 0.0
    wanted = set(relevant)
    hits, total = 0, 0.0
    for rank, item in enumerate(ranked[:k], start=1):
        if item in wanted:
            hits += 1
            total += hits / rank
    return total / len(wanted)


def ndcg_at(ranked: Sequence[K], relevant: Collection[K], k: int = 10) -> float:
    """trec_eval ``ndcg_cut_k`` with binary gains and a log2(rank + 1) discount."""
    wanted = set(relevant)
    if not wanted:
        return 0.0
    dcg = sum(1.0 / math.log2(rank + 1)
              for rank, item in enumerate(ranked[:k], start=1) if item in wanted)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(k, len(wanted)) + 1))
    return dcg / ideal


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) — what a latency target means."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]
