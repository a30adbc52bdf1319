"""Obligations judged covered (best cosine >= COVERED, no draft): how much of each piece's
wording do the nearest policy clauses use? Where do the planted S11/K08/K10 sit?"""
import asyncio, sys, json
from pathlib import Path
import numpy as np
from regintel.bench import audit_tuning as at
from regintel.bench.audit import load_gaps, clause_matches, _plain
from regintel.chat.offline import audit as A, alignment, drafts, omissions
from regintel.chat.offline.word_weights import Weights
from regintel.chat.offline.lexical import tfidf, terms
rec = {"runs": []}
orig = alignment.match
def match(*a, **k):
    d = orig(*a, **k); rec["runs"].append((k["title"], a, k, d)); return d
A.alignment.match = match
def hit(c, text, g):
    return clause_matches(c, g["rule"]) or all(_plain(t) in _plain(text) for t in g["match_terms"])

async def main(name):
    p = at.DEV_POLICIES[name]
    from regintel.cli.app import open_container
    from regintel.settings import get_settings
    s = get_settings().model_copy(update={"data_dir": Path(f"/tmp/auditdev_{name}")})
    gaps = load_gaps(p.gaps)
    async with open_container(s) as c:
        corpus = await at.ingest(c, Path("../shared/data/obliqa/rulebooks_txt"), p.pdf, p.title)
        res, _, _ = await at._audit_once(c, corpus, at.SHIPPED)
        title, a, k, drafts = [r for r in rec["runs"] if "Money" in r[0]][0]
        found, vecs, policy, pvecs = a[:4]
        pieces = [omissions.pieces(x.unit) for x in found]
        flat = [pc for ps in pieces for pc in ps]
        fvec = np.asarray(c.embedder.embed([pc.body for pc in flat]))
    words, vocab, idf = tfidf([f"{u.stem} {u.body}" for u in policy] + [x.unit.body for x in found])
    weigh = Weights(vocab, idf, ignore=set(terms("Relevant Person")))
    pw, _, _ = tfidf([pc.body for pc in flat], vocabulary=vocab, idf=idf)
    lex = pw @ words[:len(policy)].T
    drafted = {id(d.obligation) for d in drafts}
    sim = vecs @ pvecs.T
    psim = fvec @ pvecs.T
    rows = []; at_ = 0
    for i, cand in enumerate(found):
        n = len(pieces[i])
        best = float(sim[i].max())
        if best >= drafts.COVERED and not any(d.obligation is cand for d in drafts):
            near = set(np.argsort(-sim[i])[:3].tolist())
            for kk, pc in enumerate(pieces[i]):
                nn = near | set(np.argsort(-lex[at_+kk])[:3].tolist()) | set(np.argsort(-psim[at_+kk])[:3].tolist())
                cov = max(weigh.coverage(pc.body, policy[j]) for j in nn)
                pbest = float(psim[at_+kk].max())
                g = [g["id"] for g in gaps if hit(pc.clause, pc.text, g)]
                rows.append(dict(clause=pc.clause, cov=round(cov,3), pbest=round(pbest,3), best=round(best,3), ev=round(cand.score,3), act=omissions.asks_an_act(pc), planted=g, body=pc.body[:80]))
        at_ += n
    rows.sort(key=lambda r: r["cov"])
    print(name, "covered pieces", len(rows))
    for r in rows[:25]: print("  ", r)
    for r in rows:
        if r["planted"]: print(" PLANTED", rows.index(r), r)
    json.dump(rows, open(f"/work/scratch/s10/cov_{name}.json","w"))
asyncio.run(main(sys.argv[1]))
