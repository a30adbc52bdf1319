"""Multi-gold questions: put the corpus neighbours (+-1, same document) of the top passage into
the top 10 (replacing its last places) when their score is within delta (standardised) of the
10th. delta and how many top passages lend neighbours chosen by 2-way CV inside fold 0; fold 1 once."""
import numpy as np
import common, rerank, evalm

T = common.setup(); qs = T['qs']; corpus = T['corpus']
F = rerank.build('adapt0', k_bm=50, k_dense=50, extra=('static',))
doc = np.array([p['DocumentID'] for p in corpus])

def reorder(cand, s, delta, tops):
    o = np.argsort(-s, kind='stable'); cand = list(cand[o]); s = s[o]
    z = (s - s.mean()) / (s.std() + 1e-9)
    zs = dict(zip(cand, z))
    top = cand[:10]
    if len(cand) <= 10: return cand
    floor = z[9] - delta
    want = []
    for t in top[:tops]:
        for nb in (t - 1, t + 1):
            if 0 <= nb < len(doc) and doc[nb] == doc[t] and nb not in top and nb in zs and zs[nb] >= floor and nb not in want:
                want.append(nb)
    if not want: return cand
    want = sorted(want, key=lambda c: -zs[c])[:3]
    keep = top[:10 - len(want)]
    rest = [c for c in cand if c not in keep and c not in want]
    return keep + want + rest

def evaluate(ms, delta, tops):
    out = []
    for m, idx in ms:
        for i in idx:
            cand, X, _ = F[i]
            out.append(evalm.metrics(reorder(cand, m.decision(X), delta, tops), qs[i]['rel']))
    return np.array(out).mean(0)

rng = np.random.RandomState(0); p = rng.permutation(T['f0']); a, b = p[:len(p) // 2], p[len(p) // 2:]
fit = lambda idx: rerank.Listwise(1e-2).fit_groups([F[i][1] for i in idx], [F[i][2] for i in idx])
inner = [(fit(a), b), (fit(b), a)]
full = [(fit(T['f0']), T['f1'])]
print('inner base', np.round(evaluate(inner, -99, 1), 4), flush=True)
best = None
for tops in (1, 2, 3):
    for delta in (0.0, 0.25, 0.5, 1.0, 2.0):
        r = evaluate(inner, delta, tops)
        print('inner tops', tops, 'delta', delta, np.round(r, 4), flush=True)
        if best is None or r[0] > best[0][0]: best = (r, delta, tops)
print('chosen', best)
print('fold1 chosen', np.round(evaluate(full, best[1], best[2]), 4), 'fold1 base', np.round(evaluate(full, -99, 1), 4))
