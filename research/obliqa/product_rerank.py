"""Does a relevance model trained on the product's own chunks beat the shipped one (trained on
one-passage chunks) there? (REPORT §17.) Needs the kept tenant of product_chunks.py. For every
dev question: the shipped retriever's candidates and feature rows over the 7,850 chunks, each
labelled by whether it holds a piece of a gold passage (product_chunks.relevant). A listwise
linear model (rerank.Listwise, the shipped model's form) is chosen by 2-way CV inside fold 0 and
reported on fold 1, against the shipped weights on the same candidates. Metric: question-mean
Recall@10 over the questions whose gold passages can be located in the chunks."""
import asyncio, json, os, pickle, sys
from pathlib import Path
import numpy as np
sys.path.insert(0, os.path.dirname(__file__))
from product_chunks import relevant
from regintel.cli.app import open_container
from regintel.settings import get_settings
from regintel.bench.obliqa import selected
from regintel.domain.documents import SearchScope

CACHE = Path(__file__).parent / "cache" / "product_rows.pkl"


async def collect():
    dmap = json.load(open("/work/shared/data/obliqa/document_map.json"))
    s = get_settings().model_copy(update={"data_dir": Path("/tmp/chunked")})
    qs = selected(Path("/work/shared/data/obliqa/ObliQA_dev.json"), fold=None, limit=None)
    out = []
    async with open_container(s) as c:
        from sqlalchemy import text
        async with c.database.engine.connect() as conn:
            tenant = (await conn.execute(text("select id from tenants where name like 'bench-ingest-%'"))).all()[-1][0]
        docs = {d.title: d for d in await c.documents.list(tenant)}
        chunks = {d.id: await c.chunk_index.document_chunks(tenant, d.id) for d in docs.values()}
        feats = c.retriever._model.features
        for n, q in enumerate(qs):
            cands, fetched, rows = await c.retriever.candidates(tenant, q.text, SearchScope(), pool=10)
            gold = []
            for p in q.gold:
                d = docs.get(dmap[str(p.document_id)][0])
                gold.append({ch.id for ch in chunks[d.id] if relevant(p.text, ch.text)} if d else set())
            X = np.array([[r[f] for f in feats] for r in rows], np.float32)
            ids = [cd.chunk_id for cd in cands]
            out.append(dict(fold=q.fold, X=X, ids=ids, gold=gold))
            if n % 500 == 0:
                print(n, flush=True)
        w = np.array(c.retriever._model.weights, np.float32)
    pickle.dump((out, w), open(CACHE, "wb"))


def recall(items, scorer):
    r = []
    for it in items:
        gm = [g for g in it["gold"] if g]
        if not gm:
            continue
        top = {it["ids"][i] for i in np.argsort(-scorer(it["X"]))[:10]}
        r.append(sum(bool(g & top) for g in gm) / len(gm))
    return float(np.mean(r)), len(r)


def main():
    if not CACHE.exists():
        asyncio.run(collect())
    import rerank
    out, w = pickle.load(open(CACHE, "rb"))
    for it in out:
        it["y"] = np.array([any(i in g for g in it["gold"]) for i in it["ids"]], np.float32)
    f0 = [it for it in out if it["fold"] == 0]; f1 = [it for it in out if it["fold"] == 1]
    shipped = lambda X: X @ w
    pool = lambda items: float(np.mean([sum(bool(g & set(it["ids"])) for g in it["gold"] if g) / max(1, sum(bool(g) for g in it["gold"])) for it in items if any(it["gold"])]))
    print("candidate pool recall fold0 %.4f fold1 %.4f" % (pool(f0), pool(f1)))
    print("shipped  fold0 %.4f (n=%d)  fold1 %.4f (n=%d)" % (*recall(f0, shipped), *recall(f1, shipped)))
    rng = np.random.RandomState(0); p = rng.permutation(len(f0)); a, b = [f0[i] for i in p[:len(p)//2]], [f0[i] for i in p[len(p)//2:]]
    for l2 in (1e-3, 1e-2, 1e-1):
        inner = []
        for tr, te in ((a, b), (b, a)):
            m = rerank.Listwise(l2).fit_groups([it["X"] for it in tr], [it["y"] for it in tr])
            inner.append(recall(te, m.decision)[0])
        m = rerank.Listwise(l2).fit_groups([it["X"] for it in f0], [it["y"] for it in f0])
        print("trained l2=%g  fold0 inner %.4f (shipped on the same halves %.4f)  fold1 %.4f" % (
            l2, np.mean(inner), np.mean([recall(b, shipped)[0], recall(a, shipped)[0]]), recall(f1, m.decision)[0]), flush=True)


main()
