"""Candidate generation + reranker features. Everything here is per-query and portable to SQL/pgvector:
BM25 over to_tsvector lexemes, cosine over pgvector, then a few counts over the ~100 candidate rows."""
import re, math
import numpy as np
import data, lex

NUM_RE = re.compile(r"\d+(?:\.\d+[a-z]?)+|\d+[a-z]?\)")


def load_glossary_terms():
    terms = []
    for line in open(f'{data.DATA}/rulebooks_txt/GLO_VER19.181223.txt', encoding='utf-8', errors='ignore'):
        if '\t' in line:
            t = line.split('\t', 1)[0].strip()
            if t and t[0].isupper() and len(t) <= 80 and t != 'Defined Terms':
                for part in re.split(r'\s+or\s+', t):
                    toks = tuple(lex.tokenize(part))
                    if len(toks) >= 2:  # multi-word defined terms only; single words are covered by BM25
                        terms.append(toks)
    return sorted(set(terms))


def load_glossary_defs():
    """GLO table rows 'Term<TAB>Means ...' -> {term lexeme tuple: definition lexemes} (first line of definition;
    'has the meaning given in ...' cross-references are skipped). Multi-word terms only."""
    out = {}
    for line in open(f'{data.DATA}/rulebooks_txt/GLO_VER19.181223.txt', encoding='utf-8', errors='ignore'):
        if '\t' not in line: continue
        t, d = line.split('\t', 1)
        t = t.strip(); d = d.strip()
        if not t or not t[0].isupper() or len(t) > 80 or t == 'Defined Terms' or d.lower().startswith('has the meaning'):
            continue
        dt = [w for w in lex.tokenize(d) if w not in ('mean', 'relat', 'rule', 'section')]
        for part in re.split(r'\s+or\s+', t):
            tt = tuple(lex.tokenize(part))
            if len(tt) >= 2 and dt:
                out[tt] = dt
    return out


def expand_query(qtoks, defs, by_first, weight=0.3):
    """Query term weights after appending definitions of defined terms found in the query."""
    w = {t: 1.0 for t in qtoks}
    for i, t in enumerate(qtoks):
        for g in by_first.get(t, ()):
            if tuple(qtoks[i:i + len(g)]) == g:
                for d in defs[g]:
                    if d not in w: w[d] = weight
    return w


class Featurizer:
    FEATS = ['bm25', 'bm25_n', 'bm25_lrank', 'cos', 'cos_d', 'cos_lrank', 'rrf',
             'loglen', 'short', 'cov_idf', 'bigram', 'gloss', 'clause', 'doc_share', 'doc_best',
             'sec_share', 'nb_bm25', 'nb_cos', 'bigram_idf', 'trigram', 'qcov_len']
    EXTRA = []  # names of extra full-corpus score arrays passed to features() (normalised by candidate max)

    RCAP = 100

    def __init__(self, corpus, ptoks, bm, k_bm=50, k_dense=50, rrf_k=60, minlen=1):
        self.c, self.pt, self.bm = corpus, ptoks, bm
        self.k_bm, self.k_dense, self.rrf_k = k_bm, k_dense, rrf_k
        self.plen = np.array([len(p['Passage']) for p in corpus])
        self.mask = self.plen >= minlen
        self.doc = np.array([p['DocumentID'] for p in corpus])
        self.pid = [p['PassageID'] for p in corpus]
        # section = passage id minus its last component (e.g. 18.8.2 -> 18.8)
        self.sec = [(p['DocumentID'], re.sub(r'[.(][^.(]*$', '', p['PassageID'].rstrip('.)'))) for p in corpus]
        self.pbig = [set(zip(t, t[1:])) for t in ptoks]
        self.pset = [set(t) for t in ptoks]
        self.gloss = load_glossary_terms()
        self.gloss_by_first = {}
        for g in self.gloss:
            self.gloss_by_first.setdefault(g[0], []).append(g)

    def phrases_in(self, toks):
        out = set()
        for i, t in enumerate(toks):
            for g in self.gloss_by_first.get(t, ()):
                if tuple(toks[i:i + len(g)]) == g:
                    out.add(g)
        return out

    def candidates(self, bscore, dscore):
        bs = np.where(self.mask, bscore, -1e9); ds = np.where(self.mask, dscore, -1e9)
        K = self.RCAP
        ob = np.argpartition(-bs, K)[:K]; ob = ob[np.argsort(-bs[ob], kind='stable')]
        od = np.argpartition(-ds, K)[:K]; od = od[np.argsort(-ds[od], kind='stable')]
        return ob, od

    def features(self, qtext, qtoks, bscore, dscore, extra=None):
        """bscore/dscore: full-corpus BM25 and cosine arrays for the query. Returns (cand idx, X)."""
        ob, od = self.candidates(bscore, dscore)
        cand = np.array(sorted(set(ob[:self.k_bm].tolist()) | set(od[:self.k_dense].tolist())))
        # exact ranks over the whole corpus, for candidates (rank = 1 + #docs with a higher score)
        bmax = max(bscore[ob[0]], 1e-6); dmax = dscore[od[0]]
        # ranks are capped at RCAP+1 (only the top RCAP of each list are materialised, as a SQL LIMIT would)
        bpos = {d: r for r, d in enumerate(ob[:self.RCAP], 1)}; dpos = {d: r for r, d in enumerate(od[:self.RCAP], 1)}
        brank = np.array([bpos.get(i, self.RCAP + 1) for i in cand])
        drank = np.array([dpos.get(i, self.RCAP + 1) for i in cand])
        rrf = 1 / (self.rrf_k + brank) + 1 / (self.rrf_k + drank)
        qset = set(qtoks); qbig = set(zip(qtoks, qtoks[1:])); qtri = set(zip(qtoks, qtoks[1:], qtoks[2:]))
        V = self.bm.vocab; IDF = self.bm.idf
        bidf = {g: min(IDF[V[g[0]]], IDF[V[g[1]]]) if g[0] in V and g[1] in V else 0.0 for g in qbig}
        bidf_tot = sum(bidf.values()) or 1.0
        idf = {t: self.bm.idf[self.bm.vocab[t]] for t in qset if t in self.bm.vocab}
        idf_tot = sum(idf.values()) or 1.0
        qph = self.phrases_in(qtoks)
        qnums = set(m.rstrip(')') for m in NUM_RE.findall(qtext))
        # doc / section evidence among the top-20 by RRF
        top = cand[np.argsort(-rrf)[:20]]
        dcount = {}; scount = {}; dbest = {}
        for i in top:
            dcount[self.doc[i]] = dcount.get(self.doc[i], 0) + 1
            scount[self.sec[i]] = scount.get(self.sec[i], 0) + 1
        for j, i in enumerate(cand):
            dbest[self.doc[i]] = max(dbest.get(self.doc[i], 0), rrf[j])
        rrf_max = rrf.max()
        X = np.zeros((len(cand), len(self.FEATS)), np.float32)
        N = len(self.c)
        for j, i in enumerate(cand):
            ps = self.pset[i]
            cov = sum(v for t, v in idf.items() if t in ps) / idf_tot
            pb = self.pbig[i]
            big = len(qbig & pb) / max(1, len(qbig))
            bigi = sum(v for g, v in bidf.items() if g in pb) / bidf_tot
            pt = self.pt[i]
            tri = (len(qtri & set(zip(pt, pt[1:], pt[2:]))) / len(qtri)) if qtri else 0.0
            qcl = len(qset & ps) / max(1, len(qset)) * math.log1p(len(qset & ps))
            if qph:
                pph = self.phrases_in(pt) if len(pt) < 2000 else set()
                gl = len(qph & pph) / len(qph)
            else:
                gl = 0.0
            pid = self.pid[i].rstrip('.)')
            clause = 1.0 if qnums and (pid in qnums or any(n in self.c[i]['Passage'] for n in qnums)) else 0.0
            nb = [k for k in (i - 1, i + 1) if 0 <= k < N and self.doc[k] == self.doc[i]]
            X[j] = [bscore[i], bscore[i] / bmax, math.log1p(brank[j]), dscore[i], dscore[i] - dmax,
                    math.log1p(drank[j]), rrf[j] * 60, math.log1p(self.plen[i]), float(self.plen[i] < 80),
                    cov, big, gl, clause, dcount.get(self.doc[i], 0) / 20, dbest[self.doc[i]] / rrf_max,
                    scount.get(self.sec[i], 0) / 20,
                    max([bscore[k] / bmax for k in nb], default=0), max([dscore[k] for k in nb], default=0),
                    bigi, tri, qcl]
        if extra:
            E = np.stack([extra[n][cand] / max(extra[n][cand].max(), 1e-6) if n.startswith('bm25') else
                          extra[n][cand] - extra[n][cand].max() for n in self.EXTRA], 1)
            X = np.hstack([X, E.astype(np.float32)])
        return cand, X
