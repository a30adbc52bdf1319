"""Evaluate every configuration in both directions (train fold A -> report fold B), write results JSON,
calibration tables and final_model.json. Hyper-parameters were all chosen on fold 0 (see exp_*.py logs);
the reverse direction re-trains models on fold 1 with the same hyper-parameters."""
import json, sys, time
import numpy as np, torch
torch.set_num_threads(1)
import common, lex, evalm, rerank, features, data
from sklearn.linear_model import LogisticRegression

T = common.setup(); qs = T['qs']; FOLD = {0: T['f0'], 1: T['f1']}
mask = T['plen'] >= 1


def ev_rank(R, idx):
    return np.array([evalm.metrics(list(R[j]), qs[i]['rel']) for j, i in enumerate(idx)]).mean(0)


def ev_scores(S, idx):
    return ev_rank(evalm.topk_from_scores(S[idx], 10, mask), idx)


def unsup_rows(train):
    te = FOLD[1 - train]; tr = FOLD[train]
    rows = []
    bm = lex.BM25(T['ptoks'], 1.2, 0.75); B0 = bm.score_matrix(T['qtoks'])
    rows.append(('BM25 k1=1.2 b=0.75 (untuned)', ev_scores(B0, tr), ev_scores(B0, te)))
    bm.set_params(0.9, 0.4); B1 = bm.score_matrix(T['qtoks'])
    rows.append(('BM25 k1=0.9 b=0.4 (paper)', ev_scores(B1, tr), ev_scores(B1, te)))
    bm.set_params(0.9, 0.6); B = bm.score_matrix(T['qtoks'])
    rows.append(('BM25 k1=0.9 b=0.6 (fold-0 tuned)', ev_scores(B, tr), ev_scores(B, te)))
    D = common.dense_sims('plain')
    rows.append(('Dense MiniLM (plain)', ev_scores(D, tr), ev_scores(D, te)))
    DA = common.dense_sims(f'adapt{train}')
    rows.append(('Dense MiniLM + query adapter (cross-fitted on train fold)', ev_scores(DA, tr), ev_scores(DA, te)))
    Bn = B / np.maximum(B.max(1, keepdims=True), 1e-6)
    rows.append(('WSF bm25/max + 1.0*cos', ev_scores(Bn + D, tr), ev_scores(Bn + D, te)))
    rows.append(('WSF bm25/max + 1.0*cos(adapter)', ev_scores(Bn + DA, tr), ev_scores(Bn + DA, te)))
    def ranks(S):
        S = np.where(mask[None], S, -1e9); o = np.argsort(-S, axis=1); r = np.empty_like(o)
        np.put_along_axis(r, o, np.broadcast_to(np.arange(1, S.shape[1] + 1), S.shape).copy(), 1); return r
    RB, RD = ranks(B), ranks(D)
    S = 0.7 / (10 + RB) + 0.3 / (10 + RD)
    rows.append(('RRF k=10 w_bm25=0.7', ev_scores(S, tr), ev_scores(S, te)))
    return rows


def reranker_rows(train, tag_plain='plain'):
    tr, te = FOLD[train], FOLD[1 - train]
    rows = []; models = {}
    def run(name, F, make, listwise, cols=None):
        sel = (lambda X: X) if cols is None else (lambda X: X[:, cols])
        if listwise:
            inner = rerank.inner_cv_list(F, qs, tr, make, cols)
            m = make().fit_groups([sel(F[i][1]) for i in tr], [F[i][2] for i in tr])
        else:
            inner = rerank.inner_cv(F, qs, tr, make, cols)
            X, y, _ = rerank.stack(F, tr, cols); m = make().fit(X, y)
        out = rerank.rank_eval(F, qs, te, m.decision, cols)
        rows.append((name, inner, out)); models[name] = m
        print(name, inner.round(4), out.round(4), flush=True)
        return m
    nb = len(features.Featurizer.FEATS)
    base = [features.Featurizer.FEATS.index(n) for n in ['bm25', 'bm25_n', 'bm25_lrank', 'cos', 'cos_d', 'cos_lrank', 'rrf']]
    Fp = rerank.build(tag_plain, k_bm=100, k_dense=100)
    run('LR pointwise, score/rank features only, plain dense, pool 100+100', Fp, lambda: rerank.LR(1.0), False, base)
    run('LR pointwise, all 21 features, plain dense', Fp, lambda: rerank.LR(1.0), False)
    run('Listwise linear, all features, plain dense', Fp, lambda: rerank.Listwise(1e-2), True)
    Fa = rerank.build(f'adapt{train}', k_bm=100, k_dense=100)
    run('LR pointwise, all features, adapter dense', Fa, lambda: rerank.LR(1.0), False)
    run('Listwise linear, all features, adapter dense, pool 100+100', Fa, lambda: rerank.Listwise(1e-2), True)
    run('Listwise MLP h=8, adapter dense', Fa, lambda: rerank.ListwiseMLP(1e-2, 8), True)
    Fe = rerank.build(f'adapt{train}', k_bm=100, k_dense=100, extra=('bm25_exp', 'bm25_b0.9', 'bm25_b0.3'))
    run('Listwise linear + glossary-expanded BM25 + BM25(b=.9,.3)', Fe, lambda: rerank.Listwise(1e-2), True)
    F50 = rerank.build(f'adapt{train}', k_bm=50, k_dense=50)
    run('FINAL: Listwise linear, adapter dense, pool 50+50', F50, lambda: rerank.Listwise(1e-2), True)
    return rows, models, F50


if __name__ == '__main__':
    train = int(sys.argv[1])
    rows = unsup_rows(train)
    for r in rows: print(r[0], r[1].round(4), r[2].round(4), flush=True)
    r2, models, F50 = reranker_rows(train)
    rows += r2
    json.dump([(n, list(map(float, a)), list(map(float, b))) for n, a, b in rows],
              open(f'results_train{train}.json', 'w'), indent=1)
