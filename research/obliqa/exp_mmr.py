"""Does diversity in the top 10 help multi-gold questions? After the listwise score, a greedy
maximal-marginal-relevance pass over the top N: pick argmax s_i - lam * max_{j picked} cos(p_i, p_j)
(passage embeddings, plain MiniLM), s standardised per query. lam and N chosen by 2-way CV inside
fold 0; fold 1 reported once."""
import numpy as np
import common, rerank, evalm

T = common.setup(); qs = T['qs']
F = rerank.build('adapt0', k_bm=50, k_dense=50, extra=('static',))
P = np.load('cache/p_plain.npy')

def mmr(cand, s, lam, n):
    o = np.argsort(-s, kind='stable'); cand = cand[o]; s = s[o]
    s = (s - s.mean()) / (s.std() + 1e-9)
    head, tail = list(range(min(n, len(cand)))), list(cand[n:])
    picked = []
    E = P[cand[:len(head)]]
    sim = E @ E.T
    left = list(head)
    while left and len(picked) < 10:
        if picked:
            pen = sim[np.ix_(left, picked)].max(1)
        else:
            pen = np.zeros(len(left))
        k = int(np.argmax(s[left] - lam * pen))
        picked.append(left.pop(k))
    return [cand[i] for i in picked] + [cand[i] for i in left] + tail

def evaluate(models_and_sets, lam, n):
    out = []
    for m, idx in models_and_sets:
        for i in idx:
            cand, X, _ = F[i]
            out.append(evalm.metrics(mmr(cand, m.decision(X), lam, n), qs[i]['rel']))
    return np.array(out).mean(0)

rng = np.random.RandomState(0); p = rng.permutation(T['f0']); a, b = p[:len(p) // 2], p[len(p) // 2:]
fit = lambda idx: rerank.Listwise(1e-2).fit_groups([F[i][1] for i in idx], [F[i][2] for i in idx])
inner = [(fit(a), b), (fit(b), a)]
full = [(fit(T['f0']), T['f1'])]
best = None
for n in (15, 20, 30):
    for lam in (0.0, 0.1, 0.2, 0.3, 0.5, 0.8):
        r = evaluate(inner, lam, n)
        print('inner n', n, 'lam', lam, np.round(r, 4), flush=True)
        if best is None or r[0] > best[0][0]: best = (r, lam, n)
print('chosen', best)
print('fold1 chosen', np.round(evaluate(full, best[1], best[2]), 4), 'fold1 lam0', np.round(evaluate(full, 0.0, 20), 4))
