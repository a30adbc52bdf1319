import numpy as np, time
import common, lex, evalm
T = common.setup(); qs = T['qs']
t = time.time(); bm = lex.BM25(T['ptoks']); print('index', time.time() - t)
def run(k1, b, minlen=0, unique=True, idx=T['f0']):
    bm.set_params(k1, b)
    S = bm.score_matrix([T['qtoks'][i] for i in idx], unique)
    mask = T['plen'] >= minlen
    R = evalm.topk_from_scores(S, 10, mask)
    return np.array([evalm.metrics(list(R[j]), qs[i]['rel']) for j, i in enumerate(idx)]).mean(0)
print('default 1.2/0.75 f0', run(1.2, 0.75))
print('paper 0.9/0.4 f0', run(0.9, 0.4))
best = None
for k1 in [0.6, 0.9, 1.2, 1.5, 2.0]:
    for b in [0.2, 0.3, 0.4, 0.5, 0.6, 0.75]:
        r = run(k1, b); print(k1, b, r.round(4), flush=True)
        if best is None or r[1] > best[0][1]: best = (r, k1, b)
print('best f0', best)
k1, b = best[1], best[2]
for ml in [0, 20, 40, 60, 70]:
    print('minlen', ml, run(k1, b, ml).round(4))
print('qtf', run(k1, b, 0, False).round(4))
