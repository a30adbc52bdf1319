import sys, numpy as np
import common, rerank, features
T = common.setup(); qs = T['qs']; f0 = T['f0']
tag = sys.argv[1] if len(sys.argv) > 1 else 'plain'
F = rerank.build(tag)
FE = features.Featurizer.FEATS
ci = lambda names: [FE.index(n) for n in names]
print('pool recall f0', np.mean([F[i][2].sum() / len(qs[i]['rel']) for i in f0]))
print('rrf only (inner)', rerank.rank_eval(F, qs, f0, lambda X: X[:, 0], ci(['rrf'])).round(4))
for C in [0.01, 0.1, 1.0]:
    print('LR all C', C, rerank.inner_cv(F, qs, f0, lambda: rerank.LR(C)).round(4), flush=True)
base = ['bm25', 'bm25_n', 'bm25_lrank', 'cos', 'cos_d', 'cos_lrank', 'rrf']
print('LR base', rerank.inner_cv(F, qs, f0, lambda: rerank.LR(1.0), ci(base)).round(4))
for n in FE:
    if n in base: continue
    print('LR base +', n, rerank.inner_cv(F, qs, f0, lambda: rerank.LR(1.0), ci(base + [n])).round(4), flush=True)
for n in FE:
    print('LR all -', n, rerank.inner_cv(F, qs, f0, lambda: rerank.LR(1.0), [j for j in range(len(FE)) if FE[j] != n]).round(4), flush=True)
