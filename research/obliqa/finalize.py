"""Final pipeline: train on fold A, report on fold B, calibration table, export final_model.json (A=0)."""
import json, sys, time
import numpy as np, torch
torch.set_num_threads(1)
import common, rerank, features, evalm, data
from sklearn.linear_model import LogisticRegression

T = common.setup(); qs = T['qs']; FOLD = {0: T['f0'], 1: T['f1']}
EXTRA = ('static',)
STATIC_NAMES = ['len_lt150', 'len_gt1500', 'has_list_a', 'has_tab']
L2 = 1e-2; KB = KD = 50


def platt_feats(s):
    return np.stack([s, s - s.max()], 1)


def run(train, tag=None, export=False):
    tr, te = FOLD[train], FOLD[1 - train]
    tag = tag or f'adapt{train}'
    F = rerank.build(tag, k_bm=KB, k_dense=KD, extra=EXTRA)
    names = features.Featurizer.FEATS + STATIC_NAMES
    inner = rerank.inner_cv_list(F, qs, tr, lambda: rerank.Listwise(L2))
    m = rerank.Listwise(L2).fit_groups([F[i][1] for i in tr], [F[i][2] for i in tr])
    # calibration: Platt on cross-fitted train-fold scores
    rng = np.random.RandomState(0); p = rng.permutation(tr); a, b = p[:len(p) // 2], p[len(p) // 2:]
    PX, PY = [], []
    for x, y in [(a, b), (b, a)]:
        mm = rerank.Listwise(L2).fit_groups([F[i][1] for i in x], [F[i][2] for i in x])
        for i in y:
            PX.append(platt_feats(mm.decision(F[i][1]))); PY.append(F[i][2])
    cal = LogisticRegression(C=1.0).fit(np.vstack(PX), np.concatenate(PY))
    res, probs, labs, lat = [], [], [], []
    for i in te:
        cand, X, y = F[i]
        s = m.decision(X); o = np.argsort(-s, kind='stable')
        res.append(evalm.metrics(list(cand[o]), qs[i]['rel']))
        pr = cal.predict_proba(platt_feats(s))[:, 1]
        probs.append(pr[o[:10]]); labs.append(y[o[:10]])
    res = np.array(res).mean(0)
    probs = np.concatenate(probs); labs = np.concatenate(labs)
    edges = np.quantile(probs, np.linspace(0, 1, 11)); rel = []
    for k in range(10):
        sel = (probs >= edges[k]) & ((probs < edges[k + 1]) if k < 9 else (probs <= edges[k + 1]))
        rel.append((float(edges[k]), float(edges[k + 1]), int(sel.sum()), float(probs[sel].mean()), float(labs[sel].mean())))
    brier = float(((probs - labs) ** 2).mean())
    out = dict(train_fold=train, test_fold=1 - train, inner_cv_train=list(map(float, inner)),
               heldout=list(map(float, res)), reliability_top10=rel, brier_top10=brier,
               ece_top10=float(sum(r[2] * abs(r[3] - r[4]) for r in rel) / len(probs)))
    print(json.dumps(out, indent=1))
    if export:
        mu, sd = m.sc.mean_, m.sc.scale_
        w_raw = m.w / sd
        model = dict(
            description='ObliQA retrieval reranker: listwise-softmax linear model over hybrid candidates. score = sum_i w_raw[i]*x[i] '
                        '(+ constant, irrelevant for ranking). Equivalent: w_std . (x-mean)/scale.',
            trained_on='ObliQA dev fold 0 (sha256(QuestionID) % 2 == 0)',
            bm25=dict(k1=0.9, b=0.6, idf='ln(1 + (N - df + 0.5)/(df + 0.5))', query_terms='unique lexemes',
                      tokeniser="to_tsvector('english') lexemes"),
            candidates=dict(bm25_top=KB, dense_top=KD, union=True, rank_cap=100, min_chars=1),
            rrf_k=60, doc_top_for_share=20,
            dense=dict(model='sentence-transformers/all-MiniLM-L6-v2', normalize=True,
                       query_adapter='q2 = normalize(q + q @ A), A = final_adapter.npy (384x384, float32), passages unchanged'),
            features=names, mean=list(map(float, mu)), scale=list(map(float, sd)), w_std=list(map(float, m.w)),
            w_raw=list(map(float, w_raw)), intercept_raw=float(-(m.w * mu / sd).sum()),
            calibration=dict(kind='platt', inputs=['score_std', 'score_std - max(score_std over query candidates)'],
                             coef=list(map(float, cal.coef_[0])), intercept=float(cal.intercept_[0]),
                             note='score_std = w_std . (x-mean)/scale; p = sigmoid(coef . inputs + intercept)'),
            heldout_fold1=dict(recall_10=res[0], map_cut_10=res[1], ndcg_cut_10=res[2]))
        json.dump(model, open('final_model.json', 'w'), indent=1)
        A = np.load(f'{data.CACHE}/adapter_fold{train}.npy')
        np.save('final_adapter.npy', A)
    return out


if __name__ == '__main__':
    outs = [run(0, export=True), run(1)]
    json.dump(outs, open('final_results.json', 'w'), indent=1)
