"""``regintel bench answers``: ObliQA questions answered by the offline engine over the whole
passage corpus - the library search a chat turn runs, the chunks before each hit and the
chunks that hold the rest of a list a hit shows in part, then the extractive composition -
and how many of the passages each answer cites are gold. Retrieval recall says whether the
evidence was found; this says whether the answer shows it:

* ``gold_share``: of all the citations the answers make, the share that are gold passages;
* ``gold_passage_share``: the same over the distinct passages each answer cites (a list
  shown whole cites each of its items, so one passage can be cited many times);
* ``answers_citing_gold``: the share of answers that cite at least one gold passage;
* both again for the questions that ask what is required ("must", "requirements" …), the
  ones answered rules first (chat/offline/compose.py);
* the answers' confidence (``retrieval.calibration``: the calibrated probability that the
  answer cites a gold passage): per tier, the questions and the share of them citing gold;
  a reliability table (10 equal-width bins of the probability: mean predicted, observed
  rate, count) and the expected calibration error (``ece``: the bins' |predicted − observed|
  weighted by their counts)."""

from __future__ import annotations

import statistics
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from regintel.bench.metrics import percentile
from regintel.bench.obliqa import LoadedCorpus, Question, corpus_tenant, selected
from regintel.chat.offline import compose
from regintel.chat.tools import LIBRARY_HITS
from regintel.retrieval import reading
from regintel.retrieval.calibration import ConfidenceModel, answer_features, load_model
from regintel.retrieval.confidence import Tier
from regintel.retrieval.evidence import CitationBook

if TYPE_CHECKING:
    from regintel.container import Container


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    cited = sum(r["cited"] for r in rows)
    passages = sum(r["passages"] for r in rows)
    return {"questions": len(rows),
            "citations_per_answer": round(cited / len(rows), 2) if rows else 0.0,
            "passages_per_answer": round(passages / len(rows), 2) if rows else 0.0,
            "gold_share": round(sum(r["gold"] for r in rows) / cited, 4) if cited else 0.0,
            "gold_passage_share": round(sum(r["gold_passages"] for r in rows) / passages, 4)
            if passages else 0.0,
            "answers_citing_gold": round(statistics.fmean(r["gold"] > 0 for r in rows), 4)
            if rows else 0.0,
            **calibration(rows)}


RELIABILITY_BINS = 10


def calibration(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Tiers, reliability bins and expected calibration error of the rows' probabilities."""
    tiers: dict[str, dict[str, Any]] = {}
    for tier in Tier:
        mine = [r for r in rows if r["tier"] == tier.value]
        tiers[tier.value] = {"questions": len(mine), "answers_citing_gold": round(
            statistics.fmean(r["gold"] > 0 for r in mine), 4) if mine else None}
    bins: list[list[dict[str, Any]]] = [[] for _ in range(RELIABILITY_BINS)]
    for r in rows:
        bins[min(int(r["p"] * RELIABILITY_BINS), RELIABILITY_BINS - 1)].append(r)
    reliability = [{"bin": [i / RELIABILITY_BINS, (i + 1) / RELIABILITY_BINS],
                    "predicted": round(statistics.fmean(r["p"] for r in b), 4) if b else None,
                    "observed": round(statistics.fmean(r["gold"] > 0 for r in b), 4)
                    if b else None, "count": len(b)} for i, b in enumerate(bins)]
    ece = sum(len(b) * abs(statistics.fmean(r["p"] for r in b)
                           - statistics.fmean(r["gold"] > 0 for r in b)) for b in bins if b)
    return {"tiers": tiers, "reliability": reliability,
            "ece": round(ece / len(rows), 4) if rows else 0.0}


async def answered(container: Container, loaded: LoadedCorpus,
                   questions: Sequence[Question]) -> tuple[list[dict[str, Any]], list[float]]:
    """One row per question (its fold, citations, gold citations, whether it asks what is
    required, the answer's confidence features) and each answer's time in ms (the features
    included, as a chat turn computes them)."""
    rows: list[dict[str, Any]] = []
    latencies: list[float] = []
    tenant_id = loaded.tenant_id
    for question in questions:
        start = time.perf_counter()
        hits = await container.retriever.search(tenant_id, question.text, k=LIBRARY_HITS)
        hits = await reading.around(container.chunk_index, tenant_id, hits, question.text)
        book = CitationBook()
        await compose.inquiry(container.embedder, question.text, hits, book, caution=False)
        features = answer_features(question.text, hits, book.citations)
        latencies.append((time.perf_counter() - start) * 1000)
        gold = loaded.gold_chunks(question)
        cited = [c.chunk_id for c in book.citations]
        rows.append({"fold": question.fold, "cited": len(cited),
                     "gold": sum(c in gold for c in cited), "passages": len(set(cited)),
                     "gold_passages": len(set(cited) & gold),
                     "asks": compose.asks_requirements(question.text),
                     "features": features})
    return rows, latencies


def scored(rows: list[dict[str, Any]], model: ConfidenceModel, *,
           floor: float = 0.0) -> list[dict[str, Any]]:
    """The rows with each answer's confidence under ``model``: probability and tier
    (``floor``: the retrieval score under which a chat turn's answer is Low)."""
    for row in rows:
        row["p"] = model.probability(row["features"])
        row["tier"] = model.tier(row["p"], row["features"], floor=floor).value
    return rows


async def run(container: Container, corpus_dir: Path, questions_path: Path, *,
              fold: int | None = None, limit: int | None = None,
              cache_dir: Path | None = None, model: Path | None = None) -> dict[str, Any]:
    """``model``: a confidence model file to measure instead of the shipped one."""
    questions = selected(questions_path, fold=fold, limit=limit)
    async with corpus_tenant(container, corpus_dir, cache_dir=cache_dir) as loaded:
        rows, latencies = await answered(container, loaded, questions)
    calibrator = load_model(str(model) if model else None)
    scored(rows, calibrator, floor=container.settings.retrieval.medium_threshold)
    per_fold: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        per_fold[row["fold"]].append(row)
    return {**summary(rows),
            "requirement_questions": summary([r for r in rows if r["asks"]]),
            "p50_ms": round(percentile(latencies, 50), 1),
            "p95_ms": round(percentile(latencies, 95), 1),
            "passages": loaded.chunk_count,
            "confidence_model": calibrator.trained_on,
            "folds": {str(f): summary(r) for f, r in sorted(per_fold.items())}}


def table_rows(figures: dict[str, Any]) -> list[list[Any]]:
    def row(name: str, s: dict[str, Any]) -> list[Any]:
        return [name, s["questions"], s["citations_per_answer"], s["gold_share"],
                s["passages_per_answer"], s["gold_passage_share"], s["answers_citing_gold"]]

    rows = [row(f"fold {name} ({'tune' if name == '0' else 'held-out'})", s)
            for name, s in figures["folds"].items()]
    return [*rows, row("all", figures),
            row("asking what is required", figures["requirement_questions"])]


def confidence_rows(figures: dict[str, Any]) -> list[list[Any]]:
    """Per tier: questions and the share citing gold; then the reliability bins."""
    tiers = [[f"tier {name}", t["questions"], t["answers_citing_gold"]]
             for name, t in figures["tiers"].items()]
    bins = [[f"p in [{b['bin'][0]:.1f}, {b['bin'][1]:.1f})", b["count"],
             f"{b['observed']} (predicted {b['predicted']})" if b["count"] else "-"]
            for b in figures["reliability"]]
    return [*tiers, *bins, ["ece", len(figures["reliability"]), figures["ece"]]]
