from __future__ import annotations

import numpy as np
from research.training.train_relevance import fit_logistic, thresholds


def test_logistic_fit_recovers_a_separating_direction() -> None:
    rng = np.random.default_rng(7)
    x = rng.normal(size=(4000, 3))
    truth = np.array([2.0, -1.0, 0.0])
    y = (rng.random(4000) < 1 / (1 + np.exp(-(x @ truth - 0.5)))).astype(float)
    w, b = fit_logistic(x, y, l2=1e-4)
    assert np.allclose(w, truth, atol=0.25) and abs(b + 0.5) < 0.25


def test_thresholds_meet_their_precision() -> None:
    scores = [i / 100 for i in range(100)]
    gold = [s >= 0.6 or i % 2 == 0 for i, s in enumerate(scores)]  # precise only above 0.6
    high, medium = thresholds(scores, gold, high_precision=0.9, medium_precision=0.5)
    assert 0.4 <= high <= 0.65 and medium <= high


def test_listwise_fit_ranks_gold_first() -> None:
    from research.training.train_relevance import fit_listwise

    rng = np.random.default_rng(3)
    rows, labels, groups = [], [], []
    for q in range(300):
        x = rng.normal(size=(20, 2))
        gold = int(np.argmax(x[:, 0] - 0.5 * x[:, 1] + rng.normal(scale=0.3, size=20)))
        rows.append(x)
        labels.append(np.eye(20)[gold])
        groups.append(np.full(20, q))
    w = fit_listwise(np.vstack(rows), np.concatenate(labels), np.concatenate(groups))
    assert w[0] > 0 > w[1] and w[0] > 2 * abs(w[1]) * 0.5
    hits = sum(int(np.argmax(x @ w) == np.argmax(y)) for x, y in zip(rows, labels, strict=True))
    assert hits / 300 > 0.6  # random would be 0.05


def test_query_adapter_learns_a_systematic_shift() -> None:
    """Questions are passages seen through a fixed rotation; the adapter learns to undo enough
    of it that each question's own passage wins over the others."""
    from research.training.train_relevance import train_adapter

    from regintel.retrieval.relevance import apply_adapter

    rng = np.random.default_rng(11)
    dim, n = 16, 200
    passages = rng.normal(size=(n, dim)).astype(np.float32)
    passages /= np.linalg.norm(passages, axis=1, keepdims=True)
    rotation = np.linalg.qr(rng.normal(size=(dim, dim)))[0].astype(np.float32)
    queries = passages @ rotation
    gold = [{i} for i in range(n)]

    def top1(q: np.ndarray) -> float:
        return float(np.mean(np.argmax(q @ passages.T, axis=1) == np.arange(n)))

    adapter = train_adapter(queries, gold, passages, np.zeros(n, dtype=bool), epochs=200,
                            penalty=0.0, scale=10.0)
    assert adapter.shape == (dim, dim)
    assert top1(apply_adapter(adapter, queries)) > top1(queries) + 0.1  # 0.005 → ≈0.13
