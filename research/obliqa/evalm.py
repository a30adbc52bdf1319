"""trec_eval-style metrics."""
import numpy as np


def metrics(ranked, rel, k=10):
    """ranked: list of corpus idx (best first); rel: set. Returns recall@k, map@k, ndcg@k."""
    top = ranked[:k]
    hits = 0; ap = 0.0; dcg = 0.0
    for r, d in enumerate(top, 1):
        if d in rel:
            hits += 1; ap += hits / r; dcg += 1 / np.log2(r + 1)
    n = len(rel)
    idcg = sum(1 / np.log2(r + 1) for r in range(1, min(n, k) + 1))
    return hits / n, ap / n, dcg / idcg


def evaluate(rankings, qs, idxs, k=10):
    m = np.array([metrics(rankings[i], qs[i]['rel'], k) for i in idxs])
    return m.mean(0)


def topk_from_scores(S, k, mask=None):
    """S: (Q x N). returns (Q x k) indices sorted by descending score."""
    if mask is not None:
        S = np.where(mask[None, :], S, -1e9)
    part = np.argpartition(-S, k, axis=1)[:, :k]
    ps = np.take_along_axis(S, part, 1)
    o = np.argsort(-ps, axis=1, kind='stable')
    return np.take_along_axis(part, o, 1)
