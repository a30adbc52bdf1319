"""Fit the answer-confidence model that ships in ``regintel/retrieval/confidence_model.json``
on ObliQA dev **fold 0**; ``regintel bench answers`` measures it.

    .venv/bin/python -m research.training.train_confidence --corpus DIR --questions FILE \\
        --out src/regintel/retrieval/confidence_model.json [--limit N] [--json]

Every fold-0 question is answered as ``regintel bench answers`` answers it (the library search,
the chunks around the hits, the offline composition); the answer's features are those a chat
turn computes (``retrieval.calibration.answer_features``) and its label is whether it cites at
least one gold passage. Candidate models - Platt scaling of the top relevance score, a logistic
model of the retrieval scores alone, and logistic models of every feature at three L2
strengths - are compared by 5-fold cross-validated log loss inside fold 0; the best is refitted
on the whole fold. The tier thresholds are read from its out-of-fold probabilities:

* High from the lowest probability at which the answers at or above it cite gold at least
  ``HIGH_RATE`` of the time, and so do the ``WINDOW`` answers just above it (the High answers
  nearest the line are as sure as the tier says, not carried by the surest ones);
* Low below the highest probability under which the answers cite gold at most ``LOW_RATE``
  of the time, and so do the ``WINDOW`` answers just below it (more likely wrong than right:
  the turn asks before answering).

Deterministic: the same corpus, questions and composition give the same file. Fold 1 is never
read. Re-run it whenever the composition (chat/offline/compose.py) or retrieval changes."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import numpy as np
import numpy.typing as npt
import typer
from research.training.common import measure
from research.training.train_relevance import fit_logistic

from regintel.bench.answers import answered, calibration, scored
from regintel.bench.obliqa import corpus_tenant, selected
from regintel.cli.app import JsonOption
from regintel.cli.bench import CorpusOption, LimitOption, QuestionsOption
from regintel.retrieval.calibration import FEATURES, ConfidenceModel

if TYPE_CHECKING:
    from regintel.container import Container

Matrix = npt.NDArray[np.float64]
CV_FOLDS = 5
HIGH_RATE = 0.85
LOW_RATE = 0.5
WINDOW = 100
MIN_LOW = 30  # fewer answers than this below a line say nothing about it
CANDIDATES: dict[str, tuple[tuple[str, ...], float]] = {
    "platt_top1": (("top1",), 1e-4),
    "retrieval_only": (("top1", "gap", "top3_mean"), 1e-3),
    "all_l2_1e-3": (FEATURES, 1e-3),
    "all_l2_1e-2": (FEATURES, 1e-2),
    "all_l2_1e-1": (FEATURES, 1e-1),
}


def _standardise(x: Matrix) -> tuple[Matrix, Matrix]:
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    return mean, np.where(scale > 1e-9, scale, 1.0)


def _fit(x: Matrix, y: Matrix, l2: float) -> tuple[Matrix, Matrix, Matrix, float]:
    mean, scale = _standardise(x)
    weights, intercept = fit_logistic((x - mean) / scale, y, l2=l2, iterations=50)
    return mean, scale, weights, intercept


def _predict(x: Matrix, fitted: tuple[Matrix, Matrix, Matrix, float]) -> Matrix:
    mean, scale, weights, intercept = fitted
    z = ((x - mean) / scale) @ weights + intercept
    p: Matrix = 1.0 / (1.0 + np.exp(-np.clip(z, -50, 50)))
    return p


def out_of_fold(x: Matrix, y: Matrix, l2: float) -> Matrix:
    """Each row's probability from a model fitted without its fifth of the data."""
    folds = np.arange(len(y)) % CV_FOLDS
    p = np.zeros(len(y))
    for k in range(CV_FOLDS):
        held = folds == k
        p[held] = _predict(x[held], _fit(x[~held], y[~held], l2))
    return p


def log_loss(p: Matrix, y: Matrix) -> float:
    q = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-np.mean(y * np.log(q) + (1 - y) * np.log(1 - q)))


def ece(p: Matrix, y: Matrix, bins: int = 10) -> float:
    which = np.minimum((p * bins).astype(int), bins - 1)
    return float(sum(abs(p[which == b].mean() - y[which == b].mean()) * (which == b).sum()
                     for b in range(bins) if (which == b).any()) / len(y))


def thresholds(p: Matrix, y: Matrix) -> tuple[float, float]:
    """(high, low) on out-of-fold probabilities; see the module docstring."""
    order = np.argsort(-p, kind="stable")
    ps, ys = p[order], y[order]
    high = 1.0
    for i in range(len(ps)):  # answers 0..i are High with the line at ps[i]
        window = ys[max(0, i + 1 - WINDOW):i + 1]
        if i + 1 >= WINDOW and ys[:i + 1].mean() >= HIGH_RATE and window.mean() >= HIGH_RATE:
            high = float(ps[i])
    low = 0.0
    ascending_p, ascending_y = ps[::-1], ys[::-1]
    for i in range(MIN_LOW, len(ascending_p)):  # answers 0..i-1 are Low with the line at p[i]
        window = ascending_y[max(0, i - WINDOW):i]
        if ascending_y[:i].mean() <= LOW_RATE and window.mean() <= LOW_RATE:
            low = float(ascending_p[i])
    return round(high, 4), round(min(low, high), 4)


def fit(rows: list[dict[str, Any]]) -> tuple[ConfidenceModel, dict[str, Any]]:
    """The chosen model and what the choice was made on."""
    y = np.array([float(r["gold"] > 0) for r in rows])
    scores: dict[str, dict[str, float]] = {}
    oof: dict[str, Matrix] = {}
    for name, (features, l2) in CANDIDATES.items():
        x = np.array([[r["features"][f] for f in features] for r in rows])
        oof[name] = out_of_fold(x, y, l2)
        scores[name] = {"log_loss": round(log_loss(oof[name], y), 4),
                        "ece": round(ece(oof[name], y), 4)}
    best = min(scores, key=lambda n: scores[n]["log_loss"])
    features, l2 = CANDIDATES[best]
    x = np.array([[r["features"][f] for f in features] for r in rows])
    mean, scale, weights, intercept = _fit(x, y, l2)
    high, low = thresholds(oof[best], y)
    p = oof[best]
    model = ConfidenceModel(
        features=features, means=tuple(round(float(v), 6) for v in mean),
        scales=tuple(round(float(v), 6) for v in scale),
        weights=tuple(round(float(v), 6) for v in weights), intercept=round(intercept, 6),
        high=high, low=low,
        trained_on=f"ObliQA dev fold 0 ({len(rows)} questions, {int(y.sum())} answers citing "
                   f"gold)",
        # The shipped file's words, the command's old name included: a re-run reproduces it.
        notes=f"{best} chosen by {CV_FOLDS}-fold CV log loss in fold 0 (L2 {l2}); thresholds "
              f"on out-of-fold probabilities: High ≥ {HIGH_RATE} cite gold (also the "
              f"{WINDOW} nearest the line), Low ≤ {LOW_RATE}; regintel bench train-confidence")
    report = {
        "questions": len(rows), "answers_citing_gold": round(float(y.mean()), 4),
        "chosen": best, "candidates": scores, "high": high, "low": low,
        "oof_high_questions": int((p >= high).sum()),
        "oof_high_citing_gold": round(float(y[p >= high].mean()), 4)
        if (p >= high).any() else None,
        "oof_low_questions": int((p < low).sum()),
        "oof_low_citing_gold": round(float(y[p < low].mean()), 4) if (p < low).any() else None,
        "weights": {f: round(float(w), 4) for f, w in zip(features, weights, strict=True)},
    }
    return model, report


async def run(container: Container, corpus_dir: Path, questions_path: Path, *, out: Path,
              fold: int = 0, limit: int | None = None,
              cache_dir: Path | None = None) -> dict[str, Any]:
    questions = selected(questions_path, fold=fold, limit=limit)
    async with corpus_tenant(container, corpus_dir, cache_dir=cache_dir) as loaded:
        rows, _ = await answered(container, loaded, questions)
    model, report = fit(rows)
    await asyncio.to_thread(out.write_text, model.model_dump_json(indent=2) + "\n")
    # The fitted model on the rows it was fitted on (what `bench answers --fold 0` prints).
    return {**report, "fold": fold, "model": str(out),
            "fitted": calibration(scored(
                rows, model, floor=container.settings.retrieval.medium_threshold))}


def main(
    corpus: CorpusOption,
    questions: QuestionsOption,
    out: Annotated[Path, typer.Option(help="Where to write the model JSON (the shipped one is "
                                           "src/regintel/retrieval/confidence_model.json).")],
    limit: LimitOption = None,
    json_out: JsonOption = False,
) -> None:
    """Fit the answer-confidence model and its tier thresholds on ObliQA dev fold 0 only."""
    measure(lambda container, settings: run(
        container, corpus, questions, out=out, fold=0, limit=limit,
        cache_dir=settings.data_dir / "cache"), json_out, "Answer-confidence model training")


if __name__ == "__main__":
    typer.run(main)
