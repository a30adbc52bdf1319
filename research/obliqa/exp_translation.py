"""A learned term translation (supervised relevance-model expansion): the second gold passage of
a question is often worded apart from it (REPORT §2), which BM25 cannot bridge and the query
adapter bridges only through one pooled vector. From training (question, gold passage) pairs,
count how often a passage term w occurs in the gold passage of a question holding term u, and
its lift over w's corpus rate; a question's expansion is the terms most lifted by its terms
(counts at least MIN_PAIRS, question terms excluded). Features: the lift-weighted share of the
expansion present in the candidate, and BM25 of the expansion. Cross-fitted exactly like the
adapter: each half of fold 0 is featurised by a table built on the other half (the inner CV's
split), fold 1 by a table built on all of fold 0. Chosen by 2-way CV inside fold 0; fold 1
reported once."""
import math
from collections import Counter, defaultdict
import numpy as np
import common, rerank, lex

T = common.setup(); qs = T['qs']; corpus = T['corpus']
F = rerank.build('adapt0', k_bm=50, k_dense=50, extra=('static',))
N = len(corpus)
pset = [set(t) for t in T['ptoks']]
df = Counter(w for s in pset for w in s)
bm = lex.BM25(T['ptoks'], 0.9, 0.6)


def table(train):
    cu, cuw = Counter(), defaultdict(Counter)
    for i in train:
        qset = set(T['qtoks'][i])
        for g in qs[i]['rel']:
            for u in qset:
                cu[u] += 1
                cuw[u].update(pset[g])
    return cu, cuw


def expansion(i, tab, min_pairs, top, m=5.0):
    cu, cuw = tab
    qset = set(T['qtoks'][i]); score = Counter()
    for u in qset:
        if cu[u] == 0:
            continue
        idf = math.log(N / (1 + df[u]))
        for w, c in cuw[u].items():
            if c < min_pairs or w in qset:
                continue
            pw = df[w] / N
            lift = (c + m * pw) / (cu[u] + m) / pw
            if lift > 1.5:
                score[w] += idf * math.log(lift)
    return dict(score.most_common(top))


def featurise(min_pairs, top):
    rng = np.random.RandomState(0); p = rng.permutation(T['f0']); a, b = p[:len(p) // 2], p[len(p) // 2:]
    exp = {}
    for fit, app in [(a, b), (b, a), (T['f0'], T['f1'])]:
        tab = table(fit)
        for i in app:
            exp[int(i)] = expansion(i, tab, min_pairs, top)
    def cols(i, cand):
        e = exp.get(int(i), {})
        tot = sum(e.values()) or 1.0
        share = [sum(v for w, v in e.items() if w in pset[c]) / tot for c in cand]
        if e:
            b_ = bm.score_matrix_weighted([e])[0]
            mx = b_.max() or 1.0
            bmv = [b_[c] / mx for c in cand]
        else:
            bmv = [0.0] * len(cand)
        return np.stack([share, bmv], 1)
    return rerank.with_columns(F, cols)

print('example', [ (qs[i]['text'][:80], list(expansion(i, table(T['f0']), 2, 10))) for i in T['f1'][:3]], flush=True)
variants = [('base', F)]
for mp, top in [(2, 10), (2, 30), (3, 20)]:
    variants.append((f'tl mp{mp} top{top}', featurise(mp, top)))
rerank.compare_features(T, variants)
