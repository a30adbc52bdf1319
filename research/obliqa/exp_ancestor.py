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

def columns(i, cand):
    bmax = max(B[i].max(), 1e-9)
    return [[max((D[i][j] for j in ANC[c]), default=0.0), max((B[i][j] / bmax for j in ANC[c]), default=0.0),
             float(bool(ANC[c]))] for c in cand]

rerank.compare_features(T, [('base', F), ('ancestry', rerank.with_columns(F, columns))])
