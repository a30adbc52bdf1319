"""A second dense signal from all-mpnet-base-v2 (REPORT §20): its cosine as an extra reranker
feature, plain and through a query adapter of its own (cross-fitted like MiniLM's). 2-way CV inside
fold 0 chooses; fold 1 is printed once per variant and chooses nothing.
Needs cache/q_mpnet.npy and cache/p_mpnet.npy (python embed.py plain PATH_TO_MPNET mpnet)."""
import os, sys
import numpy as np, torch
torch.set_num_threads(2)
import adapter, common, data, rerank

T = common.setup(); qs = T['qs']; f0, f1 = T['f0'], T['f1']


def mp_adapter_sims():
    """Cross-fitted sims of an mpnet query adapter trained on fold 0 (sims_adaptmp0)."""
    f = f'{data.CACHE}/sims_adaptmp0.npy'
    if os.path.exists(f):
        return
    Q = np.load(f'{data.CACHE}/q_mpnet.npy'); P = np.load(f'{data.CACHE}/p_mpnet.npy')
    S = np.zeros((len(Q), len(P)), np.float32)
    rng = np.random.RandomState(0); p = rng.permutation(f0); a, b = p[:len(p) // 2], p[len(p) // 2:]
    for fit, app in [(a, b), (b, a), (f0, f1)]:
        A = adapter.train('mpnet', fit, epochs=adapter.EPOCHS, wd=adapter.WD)
        S[app] = adapter.apply(A, Q[app]) @ P.T
    np.save(f, S)


def report(name, extra, tag='adapt0'):
    F = rerank.build(tag, k_bm=50, k_dense=50, extra=extra)
    inner = rerank.inner_cv_list(F, qs, f0, lambda: rerank.Listwise(1e-2))
    m = rerank.Listwise(1e-2).fit_groups([F[i][1] for i in f0], [F[i][2] for i in f0])
    held = rerank.rank_eval(F, qs, f1, m.decision)
    print(f'{name:55s} inner {inner.round(4)}  fold1 {held.round(4)}', flush=True)


if __name__ == '__main__':
    adapter.make_sims(0)
    which = sys.argv[1:] or ['base', 'mp', 'mpa', 'mpcand']
    if 'base' in which:
        report('baseline: adapter MiniLM + static', ('static',))
    if 'mp' in which:
        report('+ cos mpnet (plain)', ('static', 'cos_mpnet'))
    if 'mpa' in which:
        mp_adapter_sims()
        report('+ cos mpnet (own adapter)', ('static', 'cos_adaptmp0'))
    if 'mpcand' in which:
        mp_adapter_sims()
        report('mpnet-adapter candidates + cos MiniLM-adapter', ('static', 'cos_adapt0'), tag='adaptmp0')
