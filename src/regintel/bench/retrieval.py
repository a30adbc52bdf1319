"""``regintel bench retrieval``: ObliQA passages into a fresh tenant, every question through the
product's hybrid retriever, Recall@10 / MAP@10 / nDCG@10 per fold, latency, and what each
confidence tier means (share of questions whose top passage is gold)."""

from __future__ import annotations

import statistics
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from regintel.bench.metrics import average_precision_at, ndcg_at, percentile, recall_at
from regintel.bench.obliqa import corpus_tenant, selected
from regintel.container import Container
from regintel.retrieval.confidence import assess


def _summary(rows: list[dict[str, float]]) -> dict[str, float]:
    if not rows:
        return {"recall@10": 0.0, "map@10": 0.0, "ndcg@10": 0.0, "questions": 0}
    return {"recall@10": round(statistics.fmean(r["recall"] for r in rows), 4),
            "map@10": round(statistics.fmean(r["ap"] for r in rows), 4),
            "ndcg@10": round(statistics.fmean(r["ndcg"] for r in rows), 4),
            "questions": len(rows)}


async def run(container: Container, corpus_dir: Path, questions_path: Path, *,
              fold: int | None = None, limit: int | None = None, keep: bool = False,
              cache_dir: Path | None = None) -> dict[str, Any]:
    questions = selected(questions_path, fold=fold, limit=limit)
    t0 = time.perf_counter()
    async with corpus_tenant(container, corpus_dir, keep=keep, cache_dir=cache_dir) as loaded:
        load_s = time.perf_counter() - t0
        tenant_id = loaded.tenant_id
        retriever = container.retriever
        r = container.settings.retrieval
        await retriever.search(tenant_id, "warm-up query about capital requirements", k=10)
        per_fold: dict[int, list[dict[str, float]]] = defaultdict(list)
        latencies: list[float] = []
        tiers: dict[str, list[bool]] = defaultdict(list)
        for question in questions:
            start = time.perf_counter()
            hits = await retriever.search(tenant_id, question.text, k=10)
            latencies.append((time.perf_counter() - start) * 1000)
            ranked = [h.chunk_id for h in hits]
            gold = loaded.gold_chunks(question)
            per_fold[question.fold].append({
                "recall": recall_at(ranked, gold), "ap": average_precision_at(ranked, gold),
                "ndcg": ndcg_at(ranked, gold)})
            tier = assess(hits, high=r.high_threshold, medium=r.medium_threshold).tier
            tiers[tier.value].append(bool(ranked) and ranked[0] in gold)
    everything = [row for rows in per_fold.values() for row in rows]
    figures: dict[str, Any] = {
        **_summary(everything),
        "p50_ms": round(percentile(latencies, 50), 1),
        "p95_ms": round(percentile(latencies, 95), 1),
        "passages": loaded.chunk_count,
        "load_s": round(load_s, 1),
        "folds": {str(f): _summary(rows) for f, rows in sorted(per_fold.items())},
        "tiers": {name: {"questions": len(flags),
                         "top1_gold": round(sum(flags) / len(flags), 4) if flags else None}
                  for name, flags in sorted(tiers.items())},
        "thresholds": {"high": r.high_threshold, "medium": r.medium_threshold},
    }
    return figures


def table_rows(figures: dict[str, Any]) -> list[list[Any]]:
    rows = [[f"fold {name} ({'tune' if name == '0' else 'held-out'})", s["questions"],
             s["recall@10"], s["map@10"], s["ndcg@10"]]
            for name, s in figures["folds"].items()]
    rows.append(["all", figures["questions"], figures["recall@10"], figures["map@10"],
                 figures["ndcg@10"]])
    return rows
