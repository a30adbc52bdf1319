import sys, numpy as np, torch
torch.set_num_threads(1)
import common, rerank, stage2, data, evalm
T = common.setup(); qs = T['qs']; f0 = T['f0']
tag = sys.argv[1]; F = rerank.build(tag, k_bm=100, k_dense=100)
P = np.load(f'{data.CACHE}/p_plain.npy')
import features
fz_sec = [(p['DocumentID'], p['PassageID'].rstrip('.)').rsplit('.', 1)[0]) for p in T['corpus']]
doc = [p['DocumentID'] for p in T['corpus']]
mk = lambda: rerank.Listwise(1e-2)
s1 = stage2.crossfit_s1(F, f0, mk)
print('stage1 crossfit f0', np.mean([evalm.metrics(list(F[i][0][np.argsort(-s1[i])]), qs[i]['rel']) for i in f0], 0).round(4))
for m in [2, 3, 5]:
    F2 = {i: (F[i][0], np.hstack([F[i][1], stage2.s2_features(F[i][0], s1[i], P, fz_sec, doc, m)]), F[i][2]) for i in f0}
    print('stage2 m', m, rerank.inner_cv_list(F2, qs, f0, mk, seed=1).round(4), flush=True)
