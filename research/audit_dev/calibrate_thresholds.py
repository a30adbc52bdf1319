"""Similarity thresholds for the offline audit read off ObliQA rather than off any policy the
audit is scored on (``calibrate_thresholds`` says how), printed as JSON. A development tool:
the product reads its thresholds from obligations/matrix.py and never runs this.

    .venv/bin/python -m research.audit_dev.calibrate_thresholds OBLIQA_DIR \\
        [--questions 200] [--seed 0]

OBLIQA_DIR holds ``passages/`` and ``ObliQA_dev.json`` (e.g. ../shared/data/obliqa).
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import numpy as np
import numpy.typing as npt

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.bench.obliqa import read_corpus, read_questions
from regintel.obligations.lexical import content_words
from regintel.ports.embedder import Embedder


def calibrate_thresholds(embedder: Embedder, obliqa_dir: Path, *,
                         exclude_documents: Sequence[int] = (1, 7), questions: int = 200,
                         seed: int = 0) -> dict[str, float]:
    """The similarity thresholds of the offline audit, from data it is not evaluated on:
    ObliQA dev questions of fold 0 (see bench/obliqa.py), outside the rulebooks the demo
    audits (AML = 1, GEN = 7). A question restates one obligation, so:

    - *covered*: question vs its gold passage (positive) against question vs the most
      lexically similar other passage of the same rulebook (same subject, another
      requirement): the Youden-best threshold (true minus false positive rate) is COVERED;
    - *topic*: question vs gold or that near miss (same subject) against question vs a random
      passage of another rulebook: the Youden-best threshold is TOPIC;
    - *related*: the 10th percentile of the positives - nine restatements in ten are at least
      this close, so a contradiction is looked for no further out.

    Passages are cut to their first MAX_WORDS words, as audit units are."""
    corpus = read_corpus(obliqa_dir / "passages")
    pool = [q for q in read_questions(obliqa_dir / "ObliQA_dev.json")
            if q.fold == 0 and len(q.gold) == 1 and q.gold[0].document_id not in
            exclude_documents and len(q.gold[0].text) >= 80]
    rng = random.Random(seed)  # noqa: S311 - a reproducible sample, not a secret
    chosen = rng.sample(pool, min(questions, len(pool)))
    texts: list[str] = []
    for q in chosen:
        gold = q.gold[0]
        same = [p for p in corpus[gold.document_id]
                if p.passage_id != gold.passage_id and len(p.text) >= 80]
        near = max(same, key=lambda p: _overlap(q.text, p.text))
        others = [d for d in corpus if d != gold.document_id and d not in exclude_documents]
        far = rng.choice([p for p in corpus[rng.choice(others)] if len(p.text) >= 80])
        texts += [q.text, _cut(gold.text), _cut(near.text), _cut(far.text)]
    vectors = embedder.embed(texts).reshape(len(chosen), 4, -1)
    sims = np.einsum("qd,qkd->qk", vectors[:, 0], vectors[:, 1:])
    pos, near_sim, far_sim = sims[:, 0], sims[:, 1], sims[:, 2]
    covered = _best_threshold(pos, near_sim, score="youden")
    topic = _best_threshold(np.concatenate([pos, near_sim]), far_sim, score="youden")
    return {"covered": round(covered, 3), "topic": round(topic, 3),
            "related": round(float(np.percentile(pos, 10)), 3), "questions": len(chosen),
            "positive_median": round(float(np.median(pos)), 3),
            "near_miss_median": round(float(np.median(near_sim)), 3),
            "unrelated_median": round(float(np.median(far_sim)), 3)}


MAX_WORDS = 60


def _cut(text: str) -> str:
    return " ".join(text.split()[:MAX_WORDS])


def _overlap(a: str, b: str) -> float:
    ta, tb = content_words(a), content_words(b)
    return len(ta & tb) / (len(ta | tb) or 1)


def _best_threshold(positives: npt.NDArray[np.float32], negatives: npt.NDArray[np.float32],
                    *, score: Literal["f1", "youden"]) -> float:
    best, best_t = -1.0, 0.0
    for t in np.arange(0.2, 0.9, 0.005):
        tp = float((positives >= t).sum())
        fp = float((negatives >= t).sum())
        fn = float(len(positives) - tp)
        if score == "f1":
            value = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
        else:
            value = tp / len(positives) - fp / len(negatives)
        if value > best:
            best, best_t = value, float(t)
    return best_t


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m research.audit_dev.calibrate_thresholds")
    parser.add_argument("obliqa_dir", type=Path,
                        help="ObliQA: passages/ and ObliQA_dev.json.")
    parser.add_argument("--questions", type=int, default=200, help="Fold-0 questions sampled.")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(json.dumps(calibrate_thresholds(LocalEmbedder(), args.obliqa_dir,
                                          questions=args.questions, seed=args.seed), indent=2))


if __name__ == "__main__":
    main()
