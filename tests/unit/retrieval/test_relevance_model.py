"""The shipped relevance model loads from package data with its query adapter, and its
probabilities behave like probabilities."""

from __future__ import annotations

import numpy as np
from research.training.train_relevance import FEATURES

from regintel.retrieval.relevance import load_model


def test_shipped_model_loads_with_its_adapter() -> None:
    model = load_model()
    assert model.features == FEATURES
    assert "fold 0" in model.trained_on
    assert model.adapter is not None and model.adapter.shape == (384, 384)
    rng = np.random.default_rng(0)
    q = rng.normal(size=384).astype(np.float32)
    q /= np.linalg.norm(q)
    adapted = np.array(model.adapt_query([float(x) for x in q]), dtype=np.float32)
    assert abs(float(np.linalg.norm(adapted)) - 1.0) < 1e-5
    assert not np.allclose(adapted, q)


def test_probabilities_rank_like_scores_and_stay_in_range() -> None:
    model = load_model()
    strong = {f: 0.0 for f in model.features} | {"rrf": 2.0, "dense_sim": 0.8,
                                                  "lexical_norm": 1.0, "inv_dense_rank": 1.0,
                                                  "inv_lexical_rank": 1.0, "overlap": 0.9,
                                                  "pairs": 0.8, "doc_best": 1.0}
    weak = {f: 0.0 for f in model.features} | {"rrf": 0.3, "dense_sim": 0.1,
                                                "dense_missing": 1.0, "lexical_norm": 0.1}
    p_strong, p_weak = model.probabilities([strong, weak])
    assert 0.0 <= p_weak < p_strong <= 1.0
