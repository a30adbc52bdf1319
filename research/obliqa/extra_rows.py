"""Fold-1 figures for exploratory configurations (all chosen/rejected on fold-0 inner CV beforehand)."""
import json, numpy as np, torch
torch.set_num_threads(1)
import common, rerank, stage2, data, evalm, lex
T = common.setup(); qs = T['qs']; tr, te = T['f0'], T['f1']
rows = []
def fit_eval(name, F, make):
    inner = rerank.inner_cv_list(F, qs, tr, make)
    m = make().fit_groups([F[i][1] for i in tr], [F[i][2] for i in tr])
    rows.append((name, inner, rerank.rank_eval(F, qs, te, m.decision))); print(rows[-1][0], rows[-1][1].round(4), rows[-1][2].round(4), flush=True)
    return m
bm = lex.BM25(T['ptoks'], 0.6, 0.75); B = bm.score_matrix(T['qtoks']); mask = T['plen'] >= 1
ev = lambda idx: np.array([evalm.metrics(list(r), qs[i]['rel']) for r, i in zip(evalm.topk_from_scores(B[idx], 10, mask), idx)]).mean(0)
rows.append(('BM25 k1=0.6 b=0.75 (fold-0 grid argmax MAP)', ev(tr), ev(te)))
fit_eval('Listwise linear, adapter, pool 30+30', rerank.build('adapt0', k_bm=30, k_dense=30), lambda: rerank.Listwise(1e-2))
fit_eval('Listwise linear + static + cos_plain, adapter, pool 50+50', rerank.build('adapt0', k_bm=50, k_dense=50, extra=('cos_plain', 'static')), lambda: rerank.Listwise(1e-2))
fit_eval('Listwise MLP h=8 + static, adapter, pool 50+50', rerank.build('adapt0', k_bm=50, k_dense=50, extra=('static',)), lambda: rerank.ListwiseMLP(1e-2, 8))
# PRF stage 2
F = rerank.build('adapt0', k_bm=100, k_dense=100); P = np.load(f'{data.CACHE}/p_plain.npy')
sec = [(p['DocumentID'], p['PassageID'].rstrip('.)').rsplit('.', 1)[0]) for p in T['corpus']]; doc = [p['DocumentID'] for p in T['corpus']]
mk = lambda: rerank.Listwise(1e-2)
s1 = stage2.crossfit_s1(F, tr, mk); m1 = mk().fit_groups([F[i][1] for i in tr], [F[i][2] for i in tr])
for i in te: s1[i] = m1.decision(F[i][1])
F2 = {i: (F[i][0], np.hstack([F[i][1], stage2.s2_features(F[i][0], s1[i], P, sec, doc, 3)]), F[i][2]) for i in list(tr) + list(te)}
fit_eval('Two-stage: + PRF features (centroid of stage-1 top-3, same section/doc as top-1)', F2, mk)
json.dump([(n, list(map(float, a)), list(map(float, b))) for n, a, b in rows], open('results_extra_train0.json', 'w'), indent=1)
