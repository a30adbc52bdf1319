"""Does the clause's ancestry help? For a candidate "8.7.1.(1)", its ancestors are the passages
"8.7.1" and "8.7" of the same document (a heading such as "Failure to conduct or complete
Customer Due Diligence"): features = the best adapter cosine and the best normalised BM25 over
them. Chosen by 2-way CV inside fold 0; fold 1 reported."""
import numpy as np
import common, rerank, lex, data

T = common.setup(); qs = T['qs']; corpus = T['corpus']
F = rerank.build('adapt0', k_bm=50, k_dense=50, extra=('static',))
D = common.dense_sims('adapt0')
B = lex.BM25(T['ptoks'], 0.9, 0.6).score_matrix(T['qtoks'])
at = {}
for k, p in enumerate(corpus):
    at.setdefault((p['DocumentID'], p['PassageID'].rstrip('.')), k)

def ancestors(k):
    p = corpus[k]; pid = p['PassageID'].rstrip('.'); out = []
    parts = pid.split('.')
    for n in range(len(parts) - 1, 0, -1):
        a = at.get((p['DocumentID'], '.'.join(parts[:n])))
        if a is not None and a != k: out.append(a)
    return out

ANC = [ancestors(k) for k in range(len(corpus))]
print('passages with an ancestor', sum(bool(a) for a in ANC), 'of', len(corpus))

def extend(i):
    cand, X, y = F[i]
    bmax = max(B[i].max(), 1e-9)
    cols = []
    for c in cand:
        a = ANC[c]
        cols.append([max((D[i][j] for j in a), default=0.0), max((B[i][j] / bmax for j in a), default=0.0),
                     float(bool(a))])
    return cand, np.hstack([X, np.array(cols, np.float32)]), y

G = [extend(i) for i in range(len(qs))]
mk = lambda: rerank.Listwise(1e-2)
for name, FF in [('base', F), ('ancestry', G)]:
    inner = rerank.inner_cv_list(FF, qs, T['f0'], mk)
    m = mk().fit_groups([FF[i][1] for i in T['f0']], [FF[i][2] for i in T['f0']])
    held = rerank.rank_eval(FF, qs, T['f1'], m.decision)
    print(name, 'fold0 inner', np.round(inner, 4), 'fold1', np.round(held, 4), flush=True)
