"""Query-side linear adapter on frozen all-MiniLM-L6-v2 embeddings.
q' = normalize(q + q @ A) with A (384x384) trained on train-fold (question, gold) pairs using a full-corpus
softmax (every one of the 13,732 passages is a negative), L2 penalty on A (i.e. towards identity).
Passage vectors in pgvector are untouched; at query time it is one 384x384 mat-vec."""
import sys, time
import numpy as np, torch
import common, data

def train(tag, train_idx, epochs=30, lr=1e-3, wd=1.0, scale=20.0, seed=0):
    T = common.setup(); qs = T['qs']
    Q = torch.tensor(np.load(f'{data.CACHE}/q_{tag}.npy')); P = torch.tensor(np.load(f'{data.CACHE}/p_{tag}.npy'))
    mask = torch.tensor(T['plen'] >= 1)
    pairs = [(i, g) for i in train_idx for g in qs[i]['rel']]
    qi = torch.tensor([p[0] for p in pairs]); gi = torch.tensor([p[1] for p in pairs])
    # other gold passages of the same question must not act as negatives
    torch.manual_seed(seed)
    d = Q.shape[1]
    A = torch.zeros(d, d, requires_grad=True)
    opt = torch.optim.Adam([A], lr=lr)
    negmask = torch.zeros(len(pairs), P.shape[0], dtype=torch.bool)
    for k, (i, g) in enumerate(pairs):
        for o in qs[i]['rel']:
            if o != g: negmask[k, o] = True
    negmask |= ~mask[None]
    for ep in range(epochs):
        perm = torch.randperm(len(pairs))
        for s in range(0, len(pairs), 256):
            b = perm[s:s + 256]
            q = Q[qi[b]]; q = torch.nn.functional.normalize(q + q @ A, dim=-1)
            logits = scale * q @ P.T
            logits = logits.masked_fill(negmask[b], -1e4)
            loss = torch.nn.functional.cross_entropy(logits, gi[b]) + wd * (A ** 2).sum() / d
            opt.zero_grad(); loss.backward(); opt.step()
    return A.detach().numpy()

def apply(A, Q):
    q = Q + Q @ A
    return q / np.linalg.norm(q, axis=1, keepdims=True)

EPOCHS, WD = 8, 2.0  # chosen by 2-way CV inside fold 0 (exp_adapter.py)

def make_sims(train_fold, base='plain'):
    """Cross-fitted similarity matrix: train-fold queries get scores from an adapter trained on the other half of
    the train fold; other-fold queries get scores from an adapter trained on the whole train fold."""
    import os
    f = f'{data.CACHE}/sims_adapt{train_fold}.npy'
    if os.path.exists(f): return
    T = common.setup()
    tr = T['f0'] if train_fold == 0 else T['f1']; te = T['f1'] if train_fold == 0 else T['f0']
    Q = np.load(f'{data.CACHE}/q_{base}.npy'); P = np.load(f'{data.CACHE}/p_{base}.npy')
    S = np.zeros((len(Q), len(P)), np.float32)
    rng = np.random.RandomState(0); p = rng.permutation(tr); a, b = p[:len(p) // 2], p[len(p) // 2:]
    for fit, app in [(a, b), (b, a), (tr, te)]:
        A = train(base, fit, epochs=EPOCHS, wd=WD)
        S[app] = adapter_q(A, Q[app]) @ P.T
        if fit is tr:
            np.save(f'{data.CACHE}/adapter_fold{train_fold}.npy', A)
    np.save(f, S)

def adapter_q(A, Q):
    return apply(A, Q)

if __name__ == '__main__':
    torch.set_num_threads(1)
    make_sims(int(sys.argv[1]))
