import sys, numpy as np, torch
torch.set_num_threads(1)
import common, rerank, features
T = common.setup(); qs = T['qs']; f0 = T['f0']
tag = sys.argv[1]
ex = ['bm25_exp', 'bm25_b0.9', 'bm25_b0.3']
F = rerank.build(tag, k_bm=100, k_dense=100, extra=tuple(ex))
d = len(features.Featurizer.FEATS)
mk = lambda: rerank.Listwise(1e-2)
print('listwise base', rerank.inner_cv_list(F, qs, f0, mk, list(range(d))).round(4))
for j, n in enumerate(ex):
    print('listwise +', n, rerank.inner_cv_list(F, qs, f0, mk, list(range(d)) + [d + j]).round(4), flush=True)
print('listwise + all', rerank.inner_cv_list(F, qs, f0, mk).round(4))
