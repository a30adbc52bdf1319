"""``regintel bench train-injection``: fit the injection model that ships in
``regintel/guardrails/injection_model.json``.

1. Split the labelled file (deepset/prompt-injections) stratified by label with a fixed seed;
   the held-out part is recorded by index and never touched again here.
2. Draw a seeded subset of ObliQA questions (``--benign``) as in-domain benign examples; the
   rest of that file is what ``regintel bench guardrails`` reports the benign FPR on. Chat
   follow-ups (``--extra-benign``, ``guardrails/data/chat_benign_train.jsonl``: "repeat your
   previous answer", "translate that into Arabic", "ignore my last question") join as benign
   too — without them the model, trained on standalone prompts, blocks ordinary follow-ups.
   Their held-out counterpart is ``chat_benign_test.jsonl``, written separately.
3. Choose the embedding weight and the L2 strength, then the threshold, by 5-fold
   cross-validation over the training part plus that subset (folds stratified by label and
   source). A message is flagged when the model's probability reaches the threshold or a rule
   matches; the threshold maximises out-of-fold accuracy on the training prompts subject to an
   out-of-fold false-positive rate of at most 1 % on the in-domain benign rows (ObliQA subset
   and chat follow-ups).
4. Refit on everything in the training part, and record held-out figures for information.

The shipped weights, byte for byte (about a minute on 2 cores):

    regintel bench train-injection --data ../shared/data/guardrails/prompt_injections_train.jsonl \
        --benign ../shared/data/obliqa/ObliQA_dev.json \
        --extra-benign src/regintel/guardrails/data/chat_benign_train.jsonl \
        --out src/regintel/guardrails/injection_model.json

Deterministic for a given scikit-learn version (recorded): fixed seeds, lbfgs, CPU embeddings.
scikit-learn is a development dependency; the product only reads the JSON with numpy."""

from __future__ import annotations

import importlib.metadata
import json
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from regintel.bench.guardrail_data import read_benign, read_labelled, sha256_file
from regintel.errors import ConfigurationError
from regintel.guardrails import features
from regintel.guardrails.injection import InjectionModel
from regintel.guardrails.injection_rules import rule_hits
from regintel.ports.embedder import Embedder

NGRAM_RANGE = (1, 4)
BUCKETS = 2**14
EMBEDDING_WEIGHTS = (0.5, 0.75, 1.0)
C_VALUES = (10.0, 30.0)
THRESHOLDS = tuple(float(round(t, 2)) for t in np.arange(0.30, 0.81, 0.05))
MAX_TUNE_FPR = 0.01
FOLDS = 5

IntArray = npt.NDArray[np.int64]
Matrix = npt.NDArray[np.float32]


def _sklearn() -> Any:
    try:
        from sklearn.linear_model import LogisticRegression
        from sklearn.model_selection import StratifiedKFold, train_test_split
    except ImportError as exc:
        raise ConfigurationError("training needs scikit-learn",
                                 hint="pip install 'regintel[dev]'") from exc
    return LogisticRegression, StratifiedKFold, train_test_split


def _metrics(pred: npt.NDArray[np.bool_], y: IntArray) -> dict[str, float]:
    tp = int((pred & (y == 1)).sum())
    fp = int((pred & (y == 0)).sum())
    fn = int((~pred & (y == 1)).sum())
    tn = int((~pred & (y == 0)).sum())
    return {"accuracy": round((tp + tn) / max(1, len(y)), 4),
            "precision": round(tp / max(1, tp + fp), 4), "recall": round(tp / max(1, tp + fn), 4),
            "fpr": round(fp / max(1, fp + tn), 4)}


def run(data: Path, out: Path, embedder: Embedder, *, benign: Path | None = None,
        extra_benign: Path | None = None, seed: int = 0, test_fraction: float = 0.2,
        benign_tune: int = 400,
        buckets: int = BUCKETS, embedding_weights: tuple[float, ...] = EMBEDDING_WEIGHTS,
        c_values: tuple[float, ...] = C_VALUES) -> dict[str, Any]:
    """Fit, write the model JSON to ``out`` and return the training figures. The keyword
    defaults are the shipped model's; tests shrink ``buckets`` and the grid for speed."""
    logistic_regression, stratified_k_fold, train_test_split = _sklearn()
    texts, labels = read_labelled(data)
    y_all = np.asarray(labels, dtype=np.int64)
    train_idx, heldout_idx = train_test_split(np.arange(len(texts)), test_size=test_fraction,
                                              stratify=y_all, random_state=seed)
    train_idx, heldout_idx = np.sort(train_idx), np.sort(heldout_idx)

    questions = read_benign(benign) if benign else []
    tune_idx = np.sort(np.random.default_rng(seed).permutation(len(questions))[:benign_tune])
    chat = read_benign(extra_benign) if extra_benign else []
    fit_texts = [texts[i] for i in train_idx] + [questions[i] for i in tune_idx] + chat
    y = np.r_[y_all[train_idx], np.zeros(len(tune_idx) + len(chat), dtype=np.int64)]
    # 0: labelled prompts, 1: regulatory questions, 2: chat follow-ups (all benign)
    source = np.r_[np.zeros(len(train_idx)), np.ones(len(tune_idx)),
                   np.full(len(chat), 2)].astype(np.int64)
    in_domain = source > 0

    embeddings = embedder.embed(fit_texts)
    tf = features.hashed_tf(fit_texts, n_min=NGRAM_RANGE[0], n_max=NGRAM_RANGE[1],
                            buckets=buckets)
    ruled = np.array([bool(rule_hits(t)) for t in fit_texts])

    def design(rows: IntArray, idf: Matrix, weight: float) -> Matrix:
        return features.combine(features.tfidf(tf[rows], idf), embeddings[rows], weight)

    folds = list(stratified_k_fold(FOLDS, shuffle=True, random_state=seed)
                 .split(fit_texts, y * 3 + source))
    best: tuple[float, float, float, float, float] | None = None  # acc, -|t-.5|, w, c, t
    search = []
    for weight in embedding_weights:
        for c in c_values:
            oof = np.zeros(len(y))
            for fit_rows, val_rows in folds:
                idf = features.fit_idf(tf[fit_rows])
                clf = logistic_regression(C=c, max_iter=5000, class_weight="balanced")
                clf.fit(design(fit_rows, idf, weight), y[fit_rows])
                oof[val_rows] = clf.predict_proba(design(val_rows, idf, weight))[:, 1]
            for t in THRESHOLDS:
                flagged = (oof >= t) | ruled
                acc = float((flagged == y)[source == 0].mean())
                tune_fpr = float(flagged[in_domain].mean()) if in_domain.any() else 0.0
                search.append({"embedding_weight": weight, "c": c, "threshold": t,
                               "cv_accuracy": round(acc, 4), "cv_tune_fpr": round(tune_fpr, 4)})
                key = (acc, -abs(t - 0.5), weight, c, t)
                if tune_fpr <= MAX_TUNE_FPR and (best is None or key > best):
                    best = key
    if best is None:
        raise ConfigurationError("no setting keeps the benign false-positive rate under 1 %")
    cv_accuracy, _, weight, c, threshold = best

    all_rows = np.arange(len(y))
    idf = features.fit_idf(tf)
    clf = logistic_regression(C=c, max_iter=5000, class_weight="balanced")
    clf.fit(design(all_rows, idf, weight), y)
    coef = clf.coef_[0].astype(np.float32)
    intercept = float(clf.intercept_[0])

    centroid = embeddings[source == 1].mean(axis=0) if len(tune_idx) else \
        np.zeros(embedder.dimension, dtype=np.float32)
    model = InjectionModel(
        embedding_model=embedder.model_name, embedding_dimension=embedder.dimension,
        ngram_range=NGRAM_RANGE, buckets=buckets, embedding_weight=weight, regularisation_c=c,
        threshold=threshold, intercept=intercept, coef=features.encode_array(coef),
        idf=features.encode_array(idf),
        domain_centroid=[round(float(v), 6) for v in centroid / max(
            float(np.linalg.norm(centroid)), 1e-9)],
        split={"data_file": data.name, "data_sha256": sha256_file(data), "seed": seed,
               "test_fraction": test_fraction, "rows": len(texts),
               "heldout_indices": [int(i) for i in heldout_idx]},
        benign={"file": benign.name if benign else None,
                "sha256": sha256_file(benign) if benign else None, "seed": seed,
                "questions": len(questions), "tune_indices": [int(i) for i in tune_idx],
                "extra_file": extra_benign.name if extra_benign else None,
                "extra_sha256": sha256_file(extra_benign) if extra_benign else None,
                "extra_rows": len(chat)},
        trained_with={"scikit-learn": importlib.metadata.version("scikit-learn"),
                      "numpy": np.__version__},
    )
    # Held-out figures, for the record only: nothing above looked at these rows.
    heldout_texts = [texts[i] for i in heldout_idx]
    x_heldout = features.combine(
        features.tfidf(features.hashed_tf(heldout_texts, n_min=NGRAM_RANGE[0],
                                          n_max=NGRAM_RANGE[1], buckets=buckets), idf),
        embedder.embed(heldout_texts), weight)
    p = clf.predict_proba(x_heldout)[:, 1]
    rules = np.array([bool(rule_hits(t)) for t in heldout_texts])
    y_heldout = y_all[heldout_idx]
    model.metrics = {
        "cv_accuracy": round(cv_accuracy, 4),
        "heldout": _metrics((p >= threshold) | rules, y_heldout),
        "heldout_model_only": _metrics(p >= threshold, y_heldout),
        "heldout_rules_only": _metrics(rules, y_heldout),
        "search": search,
    }
    out.write_text(json.dumps(model.model_dump(mode="json"), indent=1) + "\n")
    return {"rows": len(texts), "train": len(train_idx), "heldout": len(heldout_idx),
            "benign_tune": len(tune_idx), "embedding_weight": weight, "c": c,
            "threshold": threshold, "cv_accuracy": round(cv_accuracy, 4),
            **{f"heldout_{k}": v for k, v in model.metrics["heldout"].items()}, "out": str(out)}
