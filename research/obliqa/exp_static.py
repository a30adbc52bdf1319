import sys, numpy as np, torch
torch.set_num_threads(1)
import common, rerank
T = common.setup(); qs = T['qs']; f0 = T['f0']
F = rerank.build(sys.argv[1], k_bm=50, k_dense=50, extra=('static',))
print('listwise + static', rerank.inner_cv_list(F, qs, f0, lambda: rerank.Listwise(1e-2)).round(4))
