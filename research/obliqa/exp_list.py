import sys, numpy as np, torch
torch.set_num_threads(1)
import common, rerank
T = common.setup(); qs = T['qs']; f0 = T['f0']
tag = sys.argv[1]; F = rerank.build(tag, k_bm=100, k_dense=100)
for l2 in [1e-4, 1e-3, 1e-2]:
    print('listwise l2', l2, rerank.inner_cv_list(F, qs, f0, lambda: rerank.Listwise(l2)).round(4), flush=True)
