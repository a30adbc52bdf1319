from __future__ import annotations

import numpy as np

from regintel.bench.train_relevance import fit_logistic, thresholds


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
    from regintel.bench.train_relevance import fit_listwise

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
