import numpy as np, torch, time
torch.set_num_threads(1)
import common, adapter, evalm, data
T = common.setup(); qs = T['qs']; f0 = T['f0']
Q = np.load(f'{data.CACHE}/q_plain.npy'); P = np.load(f'{data.CACHE}/p_plain.npy'); mask = T['plen'] >= 1
def ev(Qa, idx):
    R = evalm.topk_from_scores(Qa[idx] @ P.T, 100, mask)
    m = np.array([evalm.metrics(list(R[j]), qs[i]['rel']) for j, i in enumerate(idx)]).mean(0)
    r100 = np.mean([len(qs[i]['rel'] & set(R[j])) / len(qs[i]['rel']) for j, i in enumerate(idx)])
    return np.round(list(m) + [r100], 4)
rng = np.random.RandomState(0); p = rng.permutation(f0); a, b = p[:len(p) // 2], p[len(p) // 2:]
print('plain inner-b', ev(Q, b))
for wd in [1.0, 5.0]:
    for ep in [3, 6]:
        t = time.time(); A = adapter.train('plain', a, epochs=ep, wd=wd)
        print('adapter wd', wd, 'ep', ep, 'train on a, eval b', ev(adapter.apply(A, Q), b), round(time.time() - t), flush=True)
