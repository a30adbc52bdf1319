"""Postgres-english-like tokenisation and BM25 (sparse, scipy)."""
import re, math
import numpy as np, scipy.sparse as sp
import snowballstemmer

# PostgreSQL english.stop (== Snowball English stopword list, 127 words)
PG_STOP = set("""i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she
her hers herself it its itself they them their theirs themselves what which who whom this that these those am is
are was were be been being have has had having do does did doing a an the and but if or because as until while of
at by for with about against between into through during before after above below to from up down in out on off
over under again further then once here there when where why how all any both each few more most other some such
no nor not only own same so than too very s t can will just don should now""".split())

_stem = snowballstemmer.stemmer('english')
# Version/number-like tokens with dots (e.g. 5.13a.5.1, 18.5.1, 2.5) are kept whole as Postgres does ('version'/'float')
_TOK = re.compile(r"[0-9][0-9a-z]*(?:\.[0-9a-z]+)+|[a-z0-9]+(?:-[a-z0-9]+)*")
_cache = {}


def stem(w):
    s = _cache.get(w)
    if s is None:
        s = _stem.stemWord(w) if w.isalpha() else w
        _cache[w] = s
    return s


def tokenize(text):
    """Approximates to_tsvector('english', text) lexemes (with repetition)."""
    out = []
    for t in _TOK.findall(text.lower()):
        if '-' in t:  # hyphenated word: Postgres emits the compound and its parts
            parts = t.split('-')
            out.append(_stem.stemWord(t))
            out.extend(stem(p) for p in parts if p not in PG_STOP)
        elif t not in PG_STOP:
            out.append(stem(t))
    return out


class BM25:
    def __init__(self, docs_tokens, k1=0.9, b=0.4):
        self.vocab = {}
        rows, cols, vals = [], [], []
        for i, toks in enumerate(docs_tokens):
            tf = {}
            for t in toks:
                j = self.vocab.setdefault(t, len(self.vocab))
                tf[j] = tf.get(j, 0) + 1
            for j, c in tf.items():
                rows.append(i); cols.append(j); vals.append(c)
        self.N = len(docs_tokens)
        self.tf = sp.csr_matrix((np.array(vals, np.float32), (rows, cols)), shape=(self.N, len(self.vocab)))
        self.dl = np.array([len(t) for t in docs_tokens], np.float32)
        self.avgdl = self.dl.mean()
        self.df = np.bincount(self.tf.indices, minlength=len(self.vocab)).astype(np.float32)
        self.idf = np.log(1 + (self.N - self.df + 0.5) / (self.df + 0.5)).astype(np.float32)
        self.set_params(k1, b)

    def set_params(self, k1, b):
        self.k1, self.b = k1, b
        W = self.tf.tocoo()
        norm = k1 * (1 - b + b * self.dl / self.avgdl)
        v = W.data * (k1 + 1) / (W.data + norm[W.row])
        # term-doc weight matrix, columns = terms (idf applied at query time)
        self.W = sp.csc_matrix((v.astype(np.float32), (W.row, W.col)), shape=W.shape)

    def qvec(self, toks, unique=True):
        ids = {}
        for t in toks:
            j = self.vocab.get(t)
            if j is not None:
                ids[j] = 1 if unique else ids.get(j, 0) + 1
        return ids

    def scores(self, toks, unique=True):
        ids = self.qvec(toks, unique)
        s = np.zeros(self.N, np.float32)
        for j, c in ids.items():
            col = self.W[:, j]
            s[col.indices] += c * self.idf[j] * col.data
        return s

    def score_matrix_weighted(self, qweights):
        """qweights: list of {term: weight}."""
        rows, cols, vals = [], [], []
        for i, w in enumerate(qweights):
            for t, c in w.items():
                j = self.vocab.get(t)
                if j is not None:
                    rows.append(i); cols.append(j); vals.append(c * self.idf[j])
        Qm = sp.csr_matrix((vals, (rows, cols)), shape=(len(qweights), len(self.vocab)), dtype=np.float32)
        return np.asarray((Qm @ self.W.T).todense())

    def score_matrix(self, queries_toks, unique=True):
        """Dense (Q x N) score matrix."""
        rows, cols, vals = [], [], []
        for i, toks in enumerate(queries_toks):
            for j, c in self.qvec(toks, unique).items():
                rows.append(i); cols.append(j); vals.append(c * self.idf[j])
        Qm = sp.csr_matrix((vals, (rows, cols)), shape=(len(queries_toks), len(self.vocab)), dtype=np.float32)
        return np.asarray((Qm @ self.W.T).todense())
