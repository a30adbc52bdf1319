"""Shared setup: corpus, questions, tokens, BM25, cached dense sims."""
import os, pickle, time
import numpy as np
import data, lex

_T = {}

def setup():
    if _T: return _T
    corpus = data.load_corpus(); qs, _ = data.load_questions(corpus)
    tf = f'{data.CACHE}/tokens.pkl'
    if os.path.exists(tf):
        ptoks, qtoks = pickle.load(open(tf, 'rb'))
    else:
        ptoks = [lex.tokenize(p['Passage']) for p in corpus]
        qtoks = [lex.tokenize(q['text']) for q in qs]
        pickle.dump((ptoks, qtoks), open(tf, 'wb'))
    folds = np.array([q['fold'] for q in qs])
    _T.update(corpus=corpus, qs=qs, ptoks=ptoks, qtoks=qtoks, folds=folds,
              f0=np.where(folds == 0)[0], f1=np.where(folds == 1)[0],
              plen=np.array([len(p['Passage']) for p in corpus]))
    return _T

def dense_sims(tag='plain'):
    f = f'{data.CACHE}/sims_{tag}.npy'
    if os.path.exists(f): return np.load(f)
    Q = np.load(f'{data.CACHE}/q_{tag}.npy'); P = np.load(f'{data.CACHE}/p_{tag}.npy')
    S = (Q @ P.T).astype(np.float32); np.save(f, S); return S
