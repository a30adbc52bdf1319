"""Fit the relevance model that ships in ``regintel/retrieval/relevance_model.json`` (and its
query adapter) on ObliQA dev **fold 0** only; ``regintel bench retrieval --fold 1`` measures it.

    .venv/bin/python -m research.training.train_relevance --corpus DIR --questions FILE \\
        --out src/regintel/retrieval/relevance_model.json [--fold 0] [--json]

Every fold-0 question runs through the product's own candidate generation and feature code; a
candidate is positive when it is a gold passage. The ranking weights are fitted listwise
(softmax over each question's candidates, L2), which ranks better than a pointwise fit; the
Platt calibration and the confidence thresholds are fitted on out-of-fold scores (two halves of
fold 0, each scored by weights fitted on the other). Fold 1 stays untouched for reporting."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import numpy.typing as npt
import typer
from research.training.common import measure
from sqlalchemy import text

from regintel.adapters.files.local import LocalFileStore
from regintel.bench.obliqa import document_titles, load_corpus, read_corpus, read_questions
from regintel.cli.app import JsonOption
from regintel.cli.bench import CorpusOption, QuestionsOption
from regintel.container import Container
from regintel.domain.documents import SearchScope
from regintel.retrieval.relevance import RelevanceModel, apply_adapter

FEATURES = ("rrf", "dense_sim", "dense_missing", "lexical_norm", "lexical_missing",
            "inv_dense_rank", "inv_lexical_rank", "log_len", "short", "overlap", "title_mention",
            "pairs", "clause_mention", "long", "has_tab", "brief", "has_list", "doc_best",
            "doc_share", "section_share", "idf_coverage", "coverage_len")
Matrix = npt.NDArray[np.float64]


def fit_logistic(x: Matrix, y: Matrix, *, l2: float = 1e-2,
                 iterations: int = 25) -> tuple[Matrix, float]:
    """Weights and intercept of an L2 logistic regression (Newton-Raphson)."""
    n, d = x.shape
    xb = np.hstack([x, np.ones((n, 1))])
    w = np.zeros(d + 1)
    penalty = np.eye(d + 1) * l2 * n
    penalty[-1, -1] = 0.0  # the intercept is not shrunk
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(xb @ w, -50, 50)))
        gradient = xb.T @ (p - y) + penalty @ w
        hessian = (xb * (p * (1 - p))[:, None]).T @ xb + penalty
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    return w[:-1], float(w[-1])


def fit_listwise(x: Matrix, labels: Matrix, groups: npt.NDArray[np.int64], *, l2: float = 1e-2,
                 iterations: int = 400, learning_rate: float = 0.05) -> Matrix:
    """Weights maximising, per question, the softmax probability mass on its gold candidates
    (uniform over them). ``groups[i]`` is the question of row i; rows are grouped
    contiguously. Questions without a gold candidate teach nothing and are left out."""
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    sizes = np.diff(np.r_[starts, len(labels)])
    gold_per_group = np.add.reduceat(labels, starts)
    target = labels / np.repeat(np.where(gold_per_group > 0, gold_per_group, 1), sizes)
    row_weight = np.repeat((gold_per_group > 0).astype(float), sizes)
    n_groups = max(1, int((gold_per_group > 0).sum()))
    w = np.zeros(x.shape[1])
    m, v = np.zeros_like(w), np.zeros_like(w)
    for step in range(1, iterations + 1):
        s = x @ w
        e = np.exp(s - np.repeat(np.maximum.reduceat(s, starts), sizes))
        p = e / np.repeat(np.add.reduceat(e, starts), sizes)
        gradient = x.T @ ((p - target) * row_weight) / n_groups + 2 * l2 * w
        m = 0.9 * m + 0.1 * gradient  # Adam: the features differ in scale even standardised
        v = 0.999 * v + 0.001 * gradient**2
        w -= learning_rate * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
    return w


def train_adapter(queries: npt.NDArray[np.floating[Any]], gold_rows: list[set[int]],
                  passages: npt.NDArray[np.floating[Any]],
                  excluded: npt.NDArray[np.bool_], *, epochs: int = 8, penalty: float = 2.0,
                  scale: float = 20.0, seed: int = 0) -> npt.NDArray[np.float32]:
    """The query-side map A of q' = normalize(q + q·A), trained so each question's gold passage
    wins a softmax over *every* passage (its other gold passages and ``excluded`` rows are not
    negatives), with an L2 pull towards the identity map. Settings from the research (REPORT
    §3), chosen by cross-validation inside fold 0."""
    import torch

    torch.manual_seed(seed)
    pairs = [(i, g) for i, rows in enumerate(gold_rows) for g in sorted(rows)]
    if not pairs:
        return np.zeros((queries.shape[1], queries.shape[1]), dtype=np.float32)
    q_all = torch.tensor(queries, dtype=torch.float32)
    p_all = torch.tensor(passages, dtype=torch.float32)
    q_idx = torch.tensor([i for i, _ in pairs])
    g_idx = torch.tensor([g for _, g in pairs])
    blocked = torch.tensor(excluded)[None, :].repeat(len(pairs), 1)
    for k, (i, g) in enumerate(pairs):
        for other in gold_rows[i] - {g}:
            blocked[k, other] = True
    dim = queries.shape[1]
    adapter = torch.zeros(dim, dim, requires_grad=True)
    optimiser = torch.optim.Adam([adapter], lr=1e-3)
    for _ in range(epochs):
        order = torch.randperm(len(pairs))
        for start in range(0, len(pairs), 256):
            batch = order[start:start + 256]
            q = q_all[q_idx[batch]]
            q = torch.nn.functional.normalize(q + q @ adapter, dim=-1)
            logits = (scale * q @ p_all.T).masked_fill(blocked[batch], -1e4)
            loss = (torch.nn.functional.cross_entropy(logits, g_idx[batch])
                    + penalty * (adapter**2).sum() / dim)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    result: npt.NDArray[np.float32] = adapter.detach().numpy().astype(np.float32)
    return result


def thresholds(top_scores: list[float], top_is_gold: list[bool], *, high_precision: float = 0.8,
               medium_precision: float = 0.5) -> tuple[float, float]:
    """The lowest score at which questions whose best passage scores at least that much have a
    gold top passage at least ``*_precision`` of the time."""
    pairs = sorted(zip(top_scores, top_is_gold, strict=True), reverse=True)
    high = medium = 1.0
    correct = 0
    for seen, (score, gold) in enumerate(pairs, start=1):
        correct += gold
        if seen >= 30:  # too few questions above a score say nothing
            if correct / seen >= high_precision:
                high = score
            if correct / seen >= medium_precision:
                medium = score
    return round(high, 4), round(min(medium, high), 4)


async def run(container: Container, corpus_dir: Path, questions_path: Path, *, out: Path,
              fold: int = 0, cache_dir: Path | None = None) -> dict[str, Any]:
    questions = [q for q in read_questions(questions_path) if q.fold == fold]
    tenant_id = await container.documents.ensure_tenant(f"bench-train-{uuid.uuid4().hex[:8]}")
    loaded = await load_corpus(read_corpus(corpus_dir), document_titles(corpus_dir),
                               tenant_id=tenant_id, documents=container.documents,
                               files=LocalFileStore(container.settings.files_dir),
                               index=container.chunk_index, embedder=container.embedder,
                               cache_dir=cache_dir)
    retriever = container.retriever
    rows: list[list[float]] = []
    labels: list[float] = []
    per_question: list[tuple[int, int]] = []
    assert loaded.vectors is not None
    row_of = {chunk_id: i for i, chunk_id in enumerate(loaded.chunk_ids)}
    gold_rows = [{row_of[c] for c in loaded.gold_chunks(q)} for q in questions]
    raw = await asyncio.to_thread(container.embedder.embed, [q.text for q in questions])
    excluded = np.asarray(loaded.empty, dtype=bool)
    # Cross-fitted: a question's candidates come from an adapter that never saw it, so the
    # reranker learns how far to trust adapted similarities on unseen questions.
    half = np.arange(len(questions)) % 2
    query_vectors = np.zeros_like(raw)
    for h in (0, 1):
        fit = [i for i in range(len(questions)) if half[i] != h]
        adapter_h = await asyncio.to_thread(
            train_adapter, raw[fit], [gold_rows[i] for i in fit], loaded.vectors, excluded)
        query_vectors[half == h] = apply_adapter(adapter_h, raw[half == h])
    adapter = await asyncio.to_thread(train_adapter, raw, gold_rows, loaded.vectors, excluded)
    try:
        for question, vector in zip(questions, query_vectors, strict=True):
            candidates, _, features = await retriever.candidates(
                tenant_id, question.text, SearchScope(), [float(x) for x in vector])
            gold = loaded.gold_chunks(question)
            start = len(rows)
            for candidate, row in zip(candidates, features, strict=True):
                rows.append([row[f] for f in FEATURES])
                labels.append(1.0 if candidate.chunk_id in gold else 0.0)
            per_question.append((start, len(rows)))
    finally:
        async with container.database.system_session() as session:
            await session.execute(text("DELETE FROM tenants WHERE id = :t"), {"t": tenant_id})
    x, y = np.asarray(rows), np.asarray(labels)
    groups = np.concatenate([np.full(end - start, i) for i, (start, end) in
                             enumerate(per_question)]).astype(np.int64)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    z = (x - mean) / scale
    # Out-of-fold scores for calibration: each half of fold 0 scored by weights of the other.
    half = groups % 2
    oof = np.zeros(len(y))
    for h in (0, 1):
        w_other = fit_listwise(z[half != h], y[half != h], groups[half != h])
        oof[half == h] = z[half == h] @ w_other
    best = np.concatenate([np.full(end - start, oof[start:end].max() if end > start else 0.0)
                           for start, end in per_question])
    (a, b), c = fit_logistic(np.column_stack([oof, oof - best]), y, l2=1e-4)
    w_std = fit_listwise(z, y, groups)
    model = RelevanceModel(
        features=FEATURES, weights=tuple(round(float(w), 6) for w in w_std / scale),
        # The served score omits the standardisation offset; fold it into the constant.
        calibration=(round(float(a), 6), round(float(b), 6),
                     round(c - float(a) * float((w_std * mean / scale).sum()), 6)),
        trained_on=f"ObliQA dev fold {fold} ({len(questions)} questions, {len(rows)} candidates,"
                   f" {int(y.sum())} gold)",
        query_adapter=f"{out.stem}.adapter.npy",
        # The shipped file's words, the command's old name included: a re-run reproduces it.
        notes="listwise softmax (L2 1e-2, Adam) on standardised features; Platt calibration "
              "on out-of-fold scores; cross-fitted query adapter; "
              "regintel bench train-relevance")
    probabilities = 1 / (1 + np.exp(-(a * oof + b * (oof - best) + c)))
    tops, golds = [], []
    for start, end in per_question:
        if start == end:
            tops.append(0.0)
            golds.append(False)
            continue
        top = start + int(np.argmax(oof[start:end]))
        tops.append(float(probabilities[top]))
        golds.append(bool(y[top] == 1.0))
    high, medium = thresholds(tops, golds)
    await asyncio.to_thread(out.write_text, model.model_dump_json(indent=2) + "\n")
    await asyncio.to_thread(np.save, out.with_name(f"{out.stem}.adapter.npy"), adapter)
    return {"fold": fold, "questions": len(questions), "candidates": len(rows),
            "gold_candidates": int(y.sum()),
            "candidate_recall": round(float(y.sum()) / max(1, sum(
                len(loaded.gold_chunks(q)) for q in questions)), 4),
            "high_threshold": high, "medium_threshold": medium, "model": str(out)}


def main(
    corpus: CorpusOption,
    questions: QuestionsOption,
    out: Annotated[Path, typer.Option(help="Where to write the model JSON.")],
    fold: Annotated[int, typer.Option(min=0, max=1, help="Fold to train on (0).")] = 0,
    json_out: JsonOption = False,
) -> None:
    """Fit the relevance model and the confidence thresholds on one ObliQA dev fold."""
    measure(lambda container, settings: run(
        container, corpus, questions, out=out, fold=fold, cache_dir=settings.data_dir / "cache"),
        json_out, "Relevance model training")


if __name__ == "__main__":
    typer.run(main)
