"""Build candidate features for all questions, train rerankers on one fold, evaluate."""
import os, sys, time, json, pickle
import numpy as np
import common, lex, evalm, features, data
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler


def build(tag='plain', k1=0.9, b=0.6, k_bm=50, k_dense=50, minlen=1, force=False, extra=()):
    f = f'{data.CACHE}/feats_{tag}_{k1}_{b}_{k_bm}_{k_dense}_{minlen}{"_" + "-".join(extra) if extra else ""}.pkl'
    if os.path.exists(f) and not force:
        return pickle.load(open(f, 'rb'))
    T = common.setup(); qs = T['qs']
    D = common.dense_sims(tag)
    bm = lex.BM25(T['ptoks'], k1, b)
    B = bm.score_matrix(T['qtoks'])
    fz = features.Featurizer(T['corpus'], T['ptoks'], bm, k_bm, k_dense, minlen=minlen)
    fz.EXTRA = [n for n in extra if n != 'static']; EX = {}
    STATIC = None
    if 'static' in extra:  # passage-type columns (stored per chunk in the product)
        STATIC = np.array([[len(p['Passage']) < 150, len(p['Passage']) > 1500, '(a)' in p['Passage'],
                            '\t' in p['Passage']] for p in T['corpus']], np.float32)
    for n in extra:
        if n == 'bm25_exp':
            defs = features.load_glossary_defs(); byf = {}
            for g in defs: byf.setdefault(g[0], []).append(g)
            EX[n] = bm.score_matrix_weighted([features.expand_query(t, defs, byf) for t in T['qtoks']])
        elif n.startswith('cos_'):  # another dense similarity, e.g. cos_plain (un-adapted query vector)
            EX[n] = common.dense_sims(n[4:])
        elif n.startswith('bm25_b'):  # e.g. bm25_b0.9 : same k1, other b
            bm2 = lex.BM25(T['ptoks'], k1, float(n[6:])); EX[n] = bm2.score_matrix(T['qtoks'])
    out = []
    t = time.time()
    for i, q in enumerate(qs):
        cand, X = fz.features(q['text'], T['qtoks'][i], B[i], D[i], {n: EX[n][i] for n in fz.EXTRA})
        if STATIC is not None:
            X = np.hstack([X, STATIC[cand]])
        y = np.array([c in q['rel'] for c in cand], np.int8)
        out.append((cand, X, y))
    print('features sec/query', (time.time() - t) / len(qs), flush=True)
    pickle.dump(out, open(f, 'wb'))
    return out


def stack(F, idx, cols=None):
    X = np.vstack([F[i][1] for i in idx]); y = np.concatenate([F[i][2] for i in idx])
    g = np.concatenate([[i] * len(F[i][2]) for i in idx])
    return (X if cols is None else X[:, cols]), y, g


def rank_eval(F, qs, idx, scorer, cols=None):
    res = []
    for i in idx:
        cand, X, _ = F[i]
        s = scorer(X if cols is None else X[:, cols])
        order = cand[np.argsort(-s, kind='stable')]
        res.append(evalm.metrics(list(order), qs[i]['rel']))
    return np.array(res).mean(0)


class LR:
    def __init__(self, C=1.0, cw=None):
        self.sc = StandardScaler(); self.m = LogisticRegression(C=C, max_iter=2000, class_weight=cw)
    def fit(self, X, y):
        self.m.fit(self.sc.fit_transform(X), y); return self
    def decision(self, X):
        return self.m.decision_function(self.sc.transform(X))
    def proba(self, X):
        return self.m.predict_proba(self.sc.transform(X))[:, 1]


def inner_cv(F, qs, idx, make, cols=None, seed=0):
    """2-way CV inside the training fold (for model selection without touching the other fold)."""
    rng = np.random.RandomState(seed); p = rng.permutation(idx); a, bb = p[:len(p) // 2], p[len(p) // 2:]
    r = []
    for tr, te in [(a, bb), (bb, a)]:
        X, y, _ = stack(F, tr, cols); m = make().fit(X, y)
        r.append(rank_eval(F, qs, te, m.decision, cols))
    return np.mean(r, 0)


class Listwise:
    """Linear scorer trained with a per-query softmax (ListNet/MNRL style) over standardized features.
    Same functional form as LR (w.x + c), so it ports identically."""
    def __init__(self, l2=1e-3, epochs=200, lr=0.05, hidden=0):
        self.l2, self.epochs, self.lr = l2, epochs, lr
        self.sc = StandardScaler()
    def fit_groups(self, Xs, ys):
        import torch
        self.sc.fit(np.vstack(Xs))
        d = Xs[0].shape[1]
        L = max(len(x) for x in Xs)
        Xp = np.zeros((len(Xs), L, d), np.float32); M = np.zeros((len(Xs), L), bool); Y = np.zeros((len(Xs), L), np.float32)
        for k, (x, y) in enumerate(zip(Xs, ys)):
            Xp[k, :len(x)] = self.sc.transform(x); M[k, :len(x)] = True; Y[k, :len(y)] = y
        keep = Y.sum(1) > 0
        Xp, M, Y = torch.tensor(Xp[keep]), torch.tensor(M[keep]), torch.tensor(Y[keep])
        Y = Y / Y.sum(1, keepdim=True)
        w = torch.zeros(d, requires_grad=True)
        opt = torch.optim.LBFGS([w], lr=1, max_iter=self.epochs, line_search_fn='strong_wolfe')
        def closure():
            opt.zero_grad()
            s = (Xp @ w).masked_fill(~M, -1e4)
            loss = -(Y * torch.log_softmax(s, 1)).sum(1).mean() + self.l2 * (w ** 2).sum()
            loss.backward(); return loss
        opt.step(closure)
        self.w = w.detach().numpy(); return self
    def decision(self, X):
        return self.sc.transform(X) @ self.w


def inner_cv_list(F, qs, idx, make, cols=None, seed=0):
    rng = np.random.RandomState(seed); p = rng.permutation(idx); a, bb = p[:len(p) // 2], p[len(p) // 2:]
    r = []
    sel = (lambda X: X) if cols is None else (lambda X: X[:, cols])
    for tr, te in [(a, bb), (bb, a)]:
        m = make().fit_groups([sel(F[i][1]) for i in tr], [F[i][2] for i in tr])
        r.append(rank_eval(F, qs, te, m.decision, cols))
    return np.mean(r, 0)


class ListwiseMLP(Listwise):
    """Tiny 1-hidden-layer scorer (d -> h tanh -> 1) + linear skip, listwise softmax loss. Still JSON-sized."""
    def __init__(self, l2=1e-2, hidden=8, iters=300, seed=0):
        super().__init__(l2, iters); self.h = hidden; self.seed = seed
    def fit_groups(self, Xs, ys):
        import torch
        torch.manual_seed(self.seed)
        self.sc.fit(np.vstack(Xs)); d = Xs[0].shape[1]; L = max(len(x) for x in Xs)
        Xp = np.zeros((len(Xs), L, d), np.float32); M = np.zeros((len(Xs), L), bool); Y = np.zeros((len(Xs), L), np.float32)
        for k, (x, y) in enumerate(zip(Xs, ys)):
            Xp[k, :len(x)] = self.sc.transform(x); M[k, :len(x)] = True; Y[k, :len(y)] = y
        keep = Y.sum(1) > 0
        Xp, M, Y = torch.tensor(Xp[keep]), torch.tensor(M[keep]), torch.tensor(Y[keep]); Y = Y / Y.sum(1, keepdim=True)
        W1 = (0.1 * torch.randn(d, self.h)).requires_grad_(); b1 = torch.zeros(self.h, requires_grad=True)
        w2 = (0.1 * torch.randn(self.h)).requires_grad_(); w = torch.zeros(d, requires_grad=True)
        ps = [W1, b1, w2, w]
        opt = torch.optim.LBFGS(ps, lr=1, max_iter=self.epochs, line_search_fn='strong_wolfe')
        def closure():
            opt.zero_grad()
            s = (torch.tanh(Xp @ W1 + b1) @ w2 + Xp @ w).masked_fill(~M, -1e4)
            loss = -(Y * torch.log_softmax(s, 1)).sum(1).mean() + self.l2 * sum((p ** 2).sum() for p in (W1, w2, w))
            loss.backward(); return loss
        opt.step(closure)
        self.p = [p.detach().numpy() for p in ps]; return self
    def decision(self, X):
        Z = self.sc.transform(X); W1, b1, w2, w = self.p
        return np.tanh(Z @ W1 + b1) @ w2 + Z @ w


def with_columns(F, columns):
    """F with extra feature columns per question: ``columns(i, cand)`` gives a (len(cand) x k) array."""
    return [(cand, np.hstack([X, np.asarray(columns(i, cand), np.float32)]), y)
            for i, (cand, X, y) in enumerate(F)]


def compare_features(T, variants, l2=1e-2):
    """Listwise linear on each feature set: 2-way CV inside fold 0 (what chooses), fold 1 (reported)."""
    qs = T['qs']
    for name, FF in variants:
        inner = inner_cv_list(FF, qs, T['f0'], lambda: Listwise(l2))
        m = Listwise(l2).fit_groups([FF[i][1] for i in T['f0']], [FF[i][2] for i in T['f0']])
        held = rank_eval(FF, qs, T['f1'], m.decision)
        print(name, 'fold0 inner', np.round(inner, 4), 'fold1', np.round(held, 4), flush=True)
