import sys, numpy as np, torch
torch.set_num_threads(1)
import common, rerank, features
T = common.setup(); qs = T['qs']; f0 = T['f0']
tag = sys.argv[1]
for kb, kd in [(30, 30), (50, 50), (100, 50), (50, 100)]:
    F = rerank.build(tag, k_bm=kb, k_dense=kd)
    print('pool', kb, kd, 'pool recall', round(np.mean([F[i][2].sum() / len(qs[i]['rel']) for i in f0]), 4),
          rerank.inner_cv_list(F, qs, f0, lambda: rerank.Listwise(1e-2)).round(4), flush=True)
