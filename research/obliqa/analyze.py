import numpy as np, common, rerank, collections
T = common.setup(); qs = T['qs']; f0 = T['f0']; c = T['corpus']
F = rerank.build('plain')
X, y, _ = rerank.stack(F, f0); m = rerank.LR(1.0).fit(X, y)
miss = []; byn = collections.defaultdict(list)
for i in f0:
    cand, X, yy = F[i]; s = m.decision(X); order = cand[np.argsort(-s)]
    r = [list(order).index(g) + 1 if g in set(order) else 999 for g in qs[i]['rel']]
    byn[len(qs[i]['rel'])].append(np.mean([x <= 10 for x in r]))
    for g, rr in zip(qs[i]['rel'], r):
        if rr > 10: miss.append((i, g, rr))
print({k: (len(v), np.mean(v)) for k, v in byn.items()})
print('misses', len(miss), 'outside pool', sum(r == 999 for _, _, r in miss))
rng = np.random.RandomState(0)
for i, g, r in [miss[j] for j in rng.choice(len(miss), 6, replace=False)]:
    cand, X, yy = F[i]; s = m.decision(X); order = cand[np.argsort(-s)]
    print('\nQ:', qs[i]['text'], 'rank', r)
    print('  GOLD', c[g]['DocumentID'], c[g]['PassageID'], c[g]['Passage'][:300].replace('\n', ' '))
    for d in order[:2]:
        print('  TOP ', c[d]['DocumentID'], c[d]['PassageID'], c[d]['Passage'][:200].replace('\n', ' '))
