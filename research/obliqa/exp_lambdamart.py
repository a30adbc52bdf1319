"""LambdaMART (LightGBM lambdarank / rank_xendcg) over the final pipeline's candidates and features (§19).

Same candidates and 25 features as the shipped listwise linear model (rerank.build('adapt0', 50+50, static)),
optionally + a few cheap per-query features that trees can use (ranks inside the candidate list, gaps to the
query's best candidate, query length, candidate count, same-document counts). Everything is chosen by the
harness's 2-way CV inside fold 0 (rerank.inner_cv_list's split); early stopping uses a 20 % query slice of the
*training half only*, then the model is refitted on the whole training half with that number of trees.
The configuration with the best inner Recall@10 (ties -> MAP@10) is trained on all of fold 0 and fold 1 is
scored once. Also: per-query scoring latency of the chosen model.
Usage: python exp_lambdamart.py   (log: cache/exp_lambdamart.log, results: cache/exp_lambdamart.json)"""
import json, time, itertools
import numpy as np, torch
torch.set_num_threads(1)
import lightgbm as lgb
import common, rerank, evalm

NTHREADS = 2
T = common.setup(); qs = T['qs']; f0, f1 = T['f0'], T['f1']
F = rerank.build('adapt0', k_bm=50, k_dense=50, extra=('static',))   # the shipped model's rows (25 features)
NAMES = ['bm25', 'bm25_n', 'bm25_lrank', 'cos', 'cos_d', 'cos_lrank', 'rrf', 'loglen', 'short', 'cov_idf',
         'bigram', 'gloss', 'clause', 'doc_share', 'doc_best', 'sec_share', 'nb_bm25', 'nb_cos', 'bigram_idf',
         'trigram', 'qcov_len', 'len_lt150', 'len_gt1500', 'has_list_a', 'has_tab']
COL = {n: k for k, n in enumerate(NAMES)}
DOC = np.array([p['DocumentID'] for p in T['corpus']])
QLEN = np.array([len(set(t)) for t in T['qtoks']], np.float32)
EXTRA_NAMES = ['qlen', 'ncand', 'cov_gap', 'bigram_gap', 'cov_crank', 'bigram_crank', 'rrf_crank', 'bm25_gap',
               'doc_ncand', 'doc_cos_gap']


def crank(v):
    """1-based rank of each value inside the candidate list (descending; ties share the best rank)."""
    return 1 + (v[None, :] > v[:, None]).sum(1)


def extra_cols(i, cand, X):
    """Cheap per-query features, all from the candidate rows already computed (no extra index access)."""
    n = len(cand)
    cov, big, rrf, bm, cos = (X[:, COL[c]] for c in ('cov_idf', 'bigram', 'rrf', 'bm25', 'cos'))
    d = DOC[cand]
    _, inv, cnt = np.unique(d, return_inverse=True, return_counts=True)
    dcos = np.full(cnt.shape, -9.0, np.float32); np.maximum.at(dcos, inv, cos)
    return np.stack([np.full(n, QLEN[i]), np.full(n, n), cov - cov.max(), big - big.max(),
                     np.log1p(crank(cov)), np.log1p(crank(big)), np.log1p(crank(rrf)), bm - bm.max(),
                     cnt[inv], cos - dcos[inv]], 1).astype(np.float32)


FX = [(c, np.hstack([X, extra_cols(i, c, X)]), y) for i, (c, X, y) in enumerate(F)]


def halves(idx, seed=0):
    """The harness's inner split (rerank.inner_cv / inner_cv_list)."""
    p = np.random.RandomState(seed).permutation(idx); return p[:len(p) // 2], p[len(p) // 2:]


def dataset(FF, idx, cols):
    X = np.vstack([FF[i][1][:, cols] for i in idx]); y = np.concatenate([FF[i][2] for i in idx])
    return X, y, [len(FF[i][2]) for i in idx]


class LambdaMART:
    def __init__(self, cols, objective='lambdarank', num_leaves=15, learning_rate=0.05, min_data_in_leaf=50,
                 max_rounds=1000, seed=0):
        self.cols = cols; self.max_rounds = max_rounds
        self.params = dict(objective=objective, metric='ndcg', eval_at=[10], num_leaves=num_leaves,
                           learning_rate=learning_rate, min_data_in_leaf=min_data_in_leaf,
                           feature_fraction=0.8, bagging_fraction=0.8, bagging_freq=1, lambda_l2=1.0,
                           label_gain=[0.0, 1.0],  # binary labels: only gain(0)=0, gain(1)=1 matter
                           num_threads=NTHREADS, seed=seed, verbose=-1, deterministic=True, force_row_wise=True)

    def fit(self, FF, idx):
        # early stopping on a 20 % query slice of the training queries only, then refit on all of them
        p = np.random.RandomState(1).permutation(idx); k = len(p) // 5; va, tr = p[:k], p[k:]
        Xt, yt, gt = dataset(FF, tr, self.cols); Xv, yv, gv = dataset(FF, va, self.cols)
        dt = lgb.Dataset(Xt, yt, group=gt); dv = lgb.Dataset(Xv, yv, group=gv, reference=dt)
        b = lgb.train(self.params, dt, self.max_rounds, valid_sets=[dv],
                      callbacks=[lgb.early_stopping(50, verbose=False)])
        self.rounds = max(b.best_iteration, 1)
        X, y, g = dataset(FF, idx, self.cols)
        self.b = lgb.train(self.params, lgb.Dataset(X, y, group=g), self.rounds)
        return self

    def decision(self, X):
        return self.b.predict(X[:, self.cols], num_threads=NTHREADS)


def evaluate(FF, idx, scorer):
    return rerank.rank_eval(FF, qs, idx, scorer)


def inner_lm(FF, make):
    a, b = halves(f0); r = []; rounds = []
    for tr, te in [(a, b), (b, a)]:
        m = make().fit(FF, tr); r.append(evaluate(FF, te, m.decision)); rounds.append(m.rounds)
    return np.mean(r, 0), rounds


def inner_linear(FF, cols=None):
    return rerank.inner_cv_list(FF, qs, f0, lambda: rerank.Listwise(1e-2), cols)


LOG = open('cache/exp_lambdamart.log', 'a')
def log(*a):
    s = ' '.join(str(x) for x in a); print(s, flush=True); LOG.write(s + '\n'); LOG.flush()


if __name__ == '__main__':
    out = dict(rows=[])
    base25 = list(range(25)); all35 = list(range(25 + len(EXTRA_NAMES)))
    t = time.time()
    lin25 = inner_linear(FX, base25); lin35 = inner_linear(FX, all35)
    log('linear listwise, 25 features, inner', lin25.round(4)); log('linear listwise, 35 features, inner', lin35.round(4))
    out['linear_inner'] = {'25': list(map(float, lin25)), '35': list(map(float, lin35))}
    # grid: 24 on the 35 features, then the best setting on the 25 features alone (<= 30 in all)
    grid = list(itertools.product(['lambdarank', 'rank_xendcg'], [7, 15, 31], [0.03, 0.1], [20, 100]))
    for obj, nl, lr, mdl in grid:
        t0 = time.time()
        cfg = dict(objective=obj, num_leaves=nl, learning_rate=lr, min_data_in_leaf=mdl, feats=35)
        r, rounds = inner_lm(FX, lambda: LambdaMART(all35, obj, nl, lr, mdl))
        out['rows'].append(dict(cfg=cfg, inner=list(map(float, r)), rounds=rounds))
        log(json.dumps(cfg), 'inner', r.round(4), 'trees', rounds, f'{time.time() - t0:.0f}s')
    key = lambda row: (round(row['inner'][0], 4), row['inner'][1])
    best = max(out['rows'], key=key)['cfg']
    cfg = dict(best, feats=25)
    r, rounds = inner_lm(FX, lambda: LambdaMART(base25, cfg['objective'], cfg['num_leaves'], cfg['learning_rate'],
                                                 cfg['min_data_in_leaf']))
    out['rows'].append(dict(cfg=cfg, inner=list(map(float, r)), rounds=rounds))
    log(json.dumps(cfg), 'inner', r.round(4), 'trees', rounds)
    best_row = max(out['rows'], key=key); best = best_row['cfg']
    log('CHOSEN (inner CV only):', json.dumps(best), np.round(best_row['inner'], 4))
    # ---- fold 1, once: chosen LambdaMART and the shipped linear model, both trained on all of fold 0
    cols = all35 if best['feats'] == 35 else base25
    lm = LambdaMART(cols, best['objective'], best['num_leaves'], best['learning_rate'], best['min_data_in_leaf']).fit(FX, f0)
    lin = rerank.Listwise(1e-2).fit_groups([F[i][1] for i in f0], [F[i][2] for i in f0])
    h_lm = evaluate(FX, f1, lm.decision); h_lin = evaluate(F, f1, lin.decision)
    log('fold 1 held-out: linear', h_lin.round(4), 'LambdaMART', h_lm.round(4), 'trees', lm.rounds)
    out.update(chosen=best, chosen_inner=best_row['inner'], fold1_lambdamart=list(map(float, h_lm)),
               fold1_linear=list(map(float, h_lin)), fold1_trees=lm.rounds)
    imp = lm.b.feature_importance('gain'); fn = (NAMES + EXTRA_NAMES)
    top = sorted(zip(imp, [fn[c] for c in cols]), reverse=True)[:10]
    log('top gain features', [(n, round(float(g) / imp.sum(), 3)) for g, n in top])
    # ---- latency per query (fold-1 candidates): extra features + predict, vs linear dot product
    lat_lm, lat_lm1, lat_lin = [], [], []
    w = lin.w / lin.sc.scale_
    for i in f1:
        c, X, _ = F[i]
        t0 = time.perf_counter()
        Z = np.hstack([X, extra_cols(i, c, X)]) if best['feats'] == 35 else X
        s = lm.b.predict(Z[:, cols], num_threads=NTHREADS); o = c[np.argsort(-s)[:10]]
        lat_lm.append(1000 * (time.perf_counter() - t0))
        t0 = time.perf_counter(); s = lm.b.predict(Z[:, cols], num_threads=1); lat_lm1.append(1000 * (time.perf_counter() - t0))
        t0 = time.perf_counter(); s = X @ w; o = c[np.argsort(-s)[:10]]; lat_lin.append(1000 * (time.perf_counter() - t0))
    pct = lambda v: dict(p50=float(np.percentile(v, 50)), p95=float(np.percentile(v, 95)), mean_cands=float(np.mean([len(F[i][0]) for i in f1])))
    out['latency_ms'] = dict(lambdamart=pct(lat_lm), lambdamart_1thread_predict=pct(lat_lm1), linear=pct(lat_lin))
    log('latency ms', json.dumps(out['latency_ms']))
    lm.b.save_model('cache/lambdamart_fold0.txt')
    import os; log('model file bytes', os.path.getsize('cache/lambdamart_fold0.txt'), 'total', f'{time.time() - t:.0f}s')
    json.dump(out, open('cache/exp_lambdamart.json', 'w'), indent=1)
