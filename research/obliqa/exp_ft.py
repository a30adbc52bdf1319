"""Fine-tuned MiniLM (trained on fold A) as the dense component. Train-fold numbers are in-sample for the dense
model (flagged); the reranker is trained on train-fold features (dense in-sample), reported on the other fold."""
import sys, json, numpy as np, torch
torch.set_num_threads(1)
import common, rerank, evalm
T = common.setup(); qs = T['qs']; train = int(sys.argv[1])
tr, te = (T['f0'], T['f1']) if train == 0 else (T['f1'], T['f0'])
D = common.dense_sims(f'ft{train}'); mask = T['plen'] >= 1
def ev(S, idx):
    R = evalm.topk_from_scores(S[idx], 10, mask)
    return np.array([evalm.metrics(list(R[j]), qs[i]['rel']) for j, i in enumerate(idx)]).mean(0)
rows = [('Dense MiniLM fine-tuned (MNRL, 1 epoch) [train fold in-sample]', ev(D, tr), ev(D, te))]
F = rerank.build(f'ft{train}', k_bm=50, k_dense=50, extra=('static',))
m = rerank.Listwise(1e-2).fit_groups([F[i][1] for i in tr], [F[i][2] for i in tr])
rows.append(('Listwise linear + static, fine-tuned dense, pool 50+50 [train fold in-sample]',
             rerank.rank_eval(F, qs, tr, m.decision), rerank.rank_eval(F, qs, te, m.decision)))
for r in rows: print(r[0], r[1].round(4), r[2].round(4))
json.dump([(n, list(map(float, a)), list(map(float, b))) for n, a, b in rows], open(f'results_ft_train{train}.json', 'w'), indent=1)
