import sys, numpy as np, torch
torch.set_num_threads(1)
import common, rerank
T = common.setup(); qs = T['qs']; f0 = T['f0']
F = rerank.build(sys.argv[1], k_bm=50, k_dense=50, extra=('cos_plain', 'static'))
print('listwise + static + cos_plain', rerank.inner_cv_list(F, qs, f0, lambda: rerank.Listwise(1e-2)).round(4), flush=True)
F = rerank.build(sys.argv[1], k_bm=50, k_dense=50, extra=('static',))
for seed in [0, 1]:
    print('listwise + static seed', seed, rerank.inner_cv_list(F, qs, f0, lambda: rerank.Listwise(1e-2), seed=seed).round(4), flush=True)
    print('MLP8 + static seed', seed, rerank.inner_cv_list(F, qs, f0, lambda: rerank.ListwiseMLP(1e-2, 8), seed=seed).round(4), flush=True)
