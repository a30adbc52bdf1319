from __future__ import annotations

import pytest

from regintel.bench.metrics import average_precision_at, ndcg_at, percentile, recall_at


def test_recall_counts_only_the_top_k() -> None:
    ranked = ["a", "x", "b"] + ["y"] * 8 + ["c"]
    assert recall_at(ranked, {"a", "b", "c"}, 10) == pytest.approx(2 / 3)


def test_average_precision_divides_by_all_relevant() -> None:
    # hits at ranks 1 and 3: (1/1 + 2/3) / 3 relevant (one never retrieved)
    assert average_precision_at(["a", "x", "b", "y"], {"a", "b", "c"}, 10) == pytest.approx(
        (1 + 2 / 3) / 3)
    assert average_precision_at(["x", "a"], {"a"}, 10) == pytest.approx(0.5)
    assert average_precision_at(["x"] * 10 + ["a"], {"a"}, 10) == 0.0


def test_ndcg_binary_gains() -> None:
    assert ndcg_at(["a", "b"], {"a", "b"}, 10) == pytest.approx(1.0)
    # one relevant at rank 2: (1/log2(3)) / (1/log2(2))
    assert ndcg_at(["x", "a"], {"a"}, 10) == pytest.approx(0.6309, abs=1e-4)


def test_nearest_rank_percentile() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 95) == 95.0
    assert percentile(values, 50) == 50.0
    assert percentile([3.0], 95) == 3.0
