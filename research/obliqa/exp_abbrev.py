"""Abbreviations both ways: rulebooks define a name once with its initials ("Politically Exposed
Person (PEP)", "Non-Profit Organisation (NPO)") and then use either, so a question that spells a
name out misses the passages that use its initials, and the other way round. The pairs are read
from the corpus itself (a capitalised name followed by its initials in brackets); a question's
expansion is the other form of each name or initials it holds. Features: BM25 of the expansion
alone (normalised by the question's best), and whether the candidate holds any of it. Chosen by
2-way CV inside fold 0; fold 1 reported once."""
import re
from collections import Counter, defaultdict
import numpy as np
import common, rerank, lex

T = common.setup(); qs = T['qs']; corpus = T['corpus']
F = rerank.build('adapt0', k_bm=50, k_dense=50, extra=('static',))
bm = lex.BM25(T['ptoks'], 0.9, 0.6)
pset = [set(t) for t in T['ptoks']]
SMALL = {'of', 'and', 'for', 'the', 'to', 'in', 'on', 'a', 'an'}
PAIR = re.compile(r"((?:[A-Z][\w'’-]*\s+(?:(?:of|and|for|the|to|in|on)\s+)*){1,7}[A-Z][\w'’-]*)"
                  r"\s+\(([A-Z][A-Za-z]{1,7})\)")


def initials(words):
    return ''.join(w[0] for w in words if w.lower() not in SMALL).upper()


pairs = defaultdict(Counter)
for p in corpus:
    for m in PAIR.finditer(p['Passage']):
        words = m[1].split(); ab = m[2].rstrip('s')
        for k in range(1, len(words) + 1):
            tail = words[-k:]
            if tail[0].lower() in SMALL:
                continue
            if initials(tail) == ab.upper():
                pairs[ab][' '.join(tail)] += 1
                break
AMAP = {ab: c.most_common(1)[0][0] for ab, c in pairs.items()}
print(len(AMAP), 'pairs', flush=True)


def expansion(text, both):
    low = text.lower(); out = []
    for ab, lf in AMAP.items():
        if re.search(r'\b' + re.escape(lf.lower()) + r's?\b', low):
            out += lex.tokenize(ab)
        elif both and re.search(r'\b' + re.escape(ab) + r's?\b', text):
            out += lex.tokenize(lf)
    return out


def featurise(both):
    exp = [expansion(q['text'], both) for q in qs]
    print('expanded questions', sum(bool(e) for e in exp), flush=True)
    B = bm.score_matrix([e if e else ['zzzzqqq'] for e in exp])
    def cols(i, cand):
        e = set(exp[i])
        if not e:
            return np.zeros((len(cand), 2))
        b_ = B[i]; mx = b_[cand].max() or 1.0
        return np.stack([[b_[c] / mx for c in cand], [float(bool(e & pset[c])) for c in cand]], 1)
    return rerank.with_columns(F, cols)


rerank.compare_features(T, [('base', F), ('long->abbr', featurise(False)),
                            ('both ways', featurise(True))])
