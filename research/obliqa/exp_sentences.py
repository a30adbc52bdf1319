"""Does the best single sentence of a passage help? MiniLM pools a whole passage into one
vector; a question is often about one of its sentences. Feature: the best plain cosine between
the question and a sentence of the candidate (passages of one sentence: the passage's own plain
cosine), and its gap to the passage's plain cosine. Chosen by 2-way CV inside fold 0; fold 1
reported."""
import os, re
import numpy as np
import common, rerank, data, embed

T = common.setup(); qs = T['qs']; corpus = T['corpus']
F = rerank.build('adapt0', k_bm=50, k_dense=50, extra=('static',))
SPLIT = re.compile(r'(?<=[.;:])\s+(?=\(?[A-Za-z0-9])')
sents, owner = [], []
for k, p in enumerate(corpus):
    parts = [s for s in SPLIT.split(p['Passage']) if len(s) >= 20]
    if len(parts) > 1:
        for s in parts:
            sents.append(s); owner.append(k)
owner = np.array(owner)
print('sentences', len(sents), 'from passages', len(set(owner.tolist())), flush=True)
f = f'{data.CACHE}/sent_plain.npy'
if not os.path.exists(f):
    np.save(f, embed.get_model().encode(sents, batch_size=64, normalize_embeddings=True).astype(np.float32))
S = np.load(f)
Q = np.load(f'{data.CACHE}/q_plain.npy'); P = np.load(f'{data.CACHE}/p_plain.npy')
by = {}
for r, k in enumerate(owner):
    by.setdefault(int(k), []).append(r)

def columns(i, cand):
    q = Q[i]; cols = []
    for c in cand:
        own = float(P[c] @ q)
        rows = by.get(int(c))
        best = float((S[rows] @ q).max()) if rows else own
        cols.append([best, best - own])
    return cols

rerank.compare_features(T, [('base', F), ('sentences', rerank.with_columns(F, columns))])
