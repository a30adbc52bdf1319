"""Per-query latency of the final pipeline in Python (model loaded; everything over all 13,732 passages)."""
import os, time, json
os.environ['HF_HUB_OFFLINE'] = '1'
import numpy as np, torch
torch.set_num_threads(2)
import common, lex, features, embed, data

T = common.setup(); qs = T['qs']
M = json.load(open('final_model.json'))
A = np.load('final_adapter.npy'); P = np.load(f'{data.CACHE}/p_plain.npy')
bm = lex.BM25(T['ptoks'], 0.9, 0.6)
fz = features.Featurizer(T['corpus'], T['ptoks'], bm, 50, 50)
STATIC = np.array([[len(p['Passage']) < 150, len(p['Passage']) > 1500, '(a)' in p['Passage'], '\t' in p['Passage']]
                   for p in T['corpus']], np.float32)
w = np.array(M['w_raw'], np.float32)
model = embed.get_model()
lat = {'embed': [], 'bm25': [], 'dense': [], 'features+score': [], 'total': []}
for i in T['f1'][:200]:
    t0 = time.perf_counter()
    q = model.encode([qs[i]['text']], normalize_embeddings=True)[0]
    q = q + q @ A; q /= np.linalg.norm(q); t1 = time.perf_counter()
    toks = lex.tokenize(qs[i]['text']); b = bm.scores(toks); t2 = time.perf_counter()
    d = P @ q; t3 = time.perf_counter()
    cand, X = fz.features(qs[i]['text'], toks, b, d)
    X = np.hstack([X, STATIC[cand]]); s = X @ w; top = cand[np.argsort(-s)[:10]]; t4 = time.perf_counter()
    for k, v in zip(lat, [t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t0]): lat[k].append(v * 1000)
out = {k: dict(p50=float(np.percentile(v, 50)), p95=float(np.percentile(v, 95))) for k, v in lat.items()}
print(json.dumps(out, indent=1)); json.dump(out, open('timing.json', 'w'), indent=1)
