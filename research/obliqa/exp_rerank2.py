import sys, numpy as np
import common, rerank, features
from sklearn.ensemble import HistGradientBoostingClassifier
T = common.setup(); qs = T['qs']; f0 = T['f0']
tag = sys.argv[1] if len(sys.argv) > 1 else 'plain'
kb = int(sys.argv[2]) if len(sys.argv) > 2 else 100
F = rerank.build(tag, k_bm=kb, k_dense=kb)
FE = features.Featurizer.FEATS
print('pool recall f0', np.mean([F[i][2].sum() / len(qs[i]['rel']) for i in f0]))
print('LR all', rerank.inner_cv(F, qs, f0, lambda: rerank.LR(1.0)).round(4), flush=True)
for n in ['bigram_idf', 'trigram', 'qcov_len']:
    print('LR all -', n, rerank.inner_cv(F, qs, f0, lambda: rerank.LR(1.0), [j for j in range(len(FE)) if FE[j] != n]).round(4), flush=True)
class GB:
    def __init__(s, **kw): s.m = HistGradientBoostingClassifier(**kw)
    def fit(s, X, y): s.m.fit(X, y); return s
    def decision(s, X): return s.m.decision_function(X)
print('GBM', rerank.inner_cv(F, qs, f0, lambda: GB(max_iter=200, learning_rate=0.05, max_leaf_nodes=15, min_samples_leaf=50)).round(4), flush=True)
