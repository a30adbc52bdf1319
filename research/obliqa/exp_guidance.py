"""Is the passage guidance (PassageID contains "Guidance") or a binding rule, and does the
question ask what is required? Features: is_guidance, is_guidance x (question asks about
requirements / obligations / "must"), is_definition-like (short, no verb). Chosen by 2-way CV
inside fold 0; fold 1 reported once."""
import re
import numpy as np
import common, rerank

T = common.setup(); qs = T['qs']; corpus = T['corpus']
F = rerank.build('adapt0', k_bm=50, k_dense=50, extra=('static',))
G = np.array(['guidance' in p['PassageID'].lower() for p in corpus], np.float32)
ASK = re.compile(r"\b(must|required?|requirements?|obliged|obligations?|shall|mandatory)\b", re.I)
asks = np.array([bool(ASK.search(q['text'])) for q in qs], np.float32)
gold = [c for q in qs for c in q['rel']]
print('gold guidance share', G[gold].mean(), 'corpus', G.mean(), 'questions asking', asks.mean())
ga = [c for q, a in zip(qs, asks) if a for c in q['rel']]; gn = [c for q, a in zip(qs, asks) if not a for c in q['rel']]
print('gold guidance share | asks', G[ga].mean(), '| not', G[gn].mean())
cand = np.concatenate([F[i][0] for i in T['f0']])
print('candidate guidance share', G[cand].mean())
def cols(i, c):
    return np.stack([G[c], G[c] * asks[i]], 1)
rerank.compare_features(T, [('base', F), ('guidance', rerank.with_columns(F, cols))])
