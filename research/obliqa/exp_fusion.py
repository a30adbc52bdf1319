"""Dense alone, RRF and weighted-score fusion; tuned on fold 0."""
import numpy as np, sys
import common, lex, evalm
T = common.setup(); qs = T['qs']
tag = sys.argv[1] if len(sys.argv) > 1 else 'plain'
D = common.dense_sims(tag)
bm = lex.BM25(T['ptoks'], 0.9, 0.6)
B = bm.score_matrix(T['qtoks'])
mask = T['plen'] >= 1
def ev(S, idx):
    R = evalm.topk_from_scores(S[idx], 10, mask)
    return np.array([evalm.metrics(list(R[j]), qs[i]['rel']) for j, i in enumerate(idx)]).mean(0).round(4)
def ranks(S):
    S = np.where(mask[None], S, -1e9)
    o = np.argsort(-S, axis=1); r = np.empty_like(o); np.put_along_axis(r, o, np.arange(1, S.shape[1] + 1)[None].repeat(S.shape[0], 0), 1)
    return r
f0, f1 = T['f0'], T['f1']
print('bm25', ev(B, f0), ev(B, f1)); print('dense', tag, ev(D, f0), ev(D, f1))
RB, RD = ranks(B), ranks(D)
for k in [10, 30, 60]:
    for w in [0.3, 0.5, 0.7]:
        S = w / (k + RB) + (1 - w) / (k + RD)
        print('rrf k', k, 'w_bm', w, ev(S, f0), flush=True)
# weighted score fusion: per-query max-normalised bm25 + alpha * cosine
Bn = B / np.maximum(B.max(1, keepdims=True), 1e-6)
for a in [0.5, 1, 2, 3, 4]:
    print('wsf alpha', a, ev(Bn + a * D, f0), flush=True)
# recall of candidate pools
for kb, kd in [(50, 50), (100, 100), (30, 30)]:
    rb = evalm.topk_from_scores(B, kb, mask); rd = evalm.topk_from_scores(D, kd, mask)
    rec = [len(qs[i]['rel'] & (set(rb[i]) | set(rd[i]))) / len(qs[i]['rel']) for i in f0]
    print('pool recall', kb, kd, np.mean(rec))
