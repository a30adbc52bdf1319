"""Second stage: pseudo-relevance-feedback features computed from the stage-1 (listwise linear) ranking."""
import numpy as np
import rerank

S2_FEATS = ['s1', 's1_d', 's1_lrank', 'prf_cos', 'prf_cos_d', 'same_sec_top1', 'same_doc_top1', 'same_doc_top3']


def s2_features(cand, s1, P, sec, doc, m=3):
    o = np.argsort(-s1, kind='stable'); top = cand[o[:m]]
    rank = np.empty(len(cand)); rank[o] = np.arange(1, len(cand) + 1)
    cen = P[top].mean(0); cen /= np.linalg.norm(cen) + 1e-9
    pc = P[cand] @ cen
    t1 = top[0]
    X = np.stack([s1, s1 - s1.max(), np.log1p(rank), pc, pc - pc.max(),
                  np.array([sec[c] == sec[t1] for c in cand], np.float32),
                  np.array([doc[c] == doc[t1] for c in cand], np.float32),
                  np.array([sum(doc[c] == doc[t] for t in top) / m for c in cand], np.float32)], 1)
    return X.astype(np.float32)


def crossfit_s1(F, idx, make, seed=0):
    """Stage-1 scores for idx via 2-way cross-fitting (no query scored by a model that saw it)."""
    rng = np.random.RandomState(seed); p = rng.permutation(idx); a, b = p[:len(p) // 2], p[len(p) // 2:]
    out = {}
    for tr, te in [(a, b), (b, a)]:
        m = make().fit_groups([F[i][1] for i in tr], [F[i][2] for i in tr])
        for i in te: out[i] = m.decision(F[i][1])
    return out
