"""Data loading for ObliQA retrieval research."""
import json, hashlib, os
import numpy as np

DATA = '/work/shared/data/obliqa'
HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.path.join(HERE, 'cache')


def load_corpus():
    out = []
    for i in range(1, 41):
        out.extend(json.load(open(f'{DATA}/passages/{i}.json')))
    return out


def load_docmap():
    return {int(k): v for k, v in json.load(open(f'{DATA}/document_map.json')).items()}


def fold_of(qid):
    return int(hashlib.sha256(qid.encode()).hexdigest(), 16) % 2


def load_questions(corpus):
    """Returns list of dicts with 'qid','text','fold','rel' (set of corpus indices)."""
    idx = {}
    for i, p in enumerate(corpus):
        idx.setdefault((p['DocumentID'], p['PassageID']), []).append(i)
    qs = json.load(open(f'{DATA}/ObliQA_dev.json'))
    out = []
    miss = 0
    for q in qs:
        rel = set()
        for g in q['Passages']:
            cands = idx.get((g['DocumentID'], g['PassageID']), [])
            if len(cands) == 1:
                rel.add(cands[0])
            elif len(cands) > 1:
                exact = [c for c in cands if corpus[c]['Passage'] == g['Passage']]
                if not exact:
                    exact = [c for c in cands if corpus[c]['Passage'].strip() == g['Passage'].strip()]
                rel.add((exact or cands)[0])
            else:
                miss += 1
        out.append(dict(qid=q['QuestionID'], text=q['Question'], fold=fold_of(q['QuestionID']),
                        rel=rel, group=q['Group']))
    return out, miss
