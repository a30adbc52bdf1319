"""ObliQA questions against the product's own chunking of the 40 rulebooks (REPORT §16). The
rulebooks are ingested first, through the whole pipeline, into a kept tenant:
    REGINTEL_DATA_DIR=/tmp/chunked regintel bench ingest --dir ../shared/data/obliqa/rulebooks_txt --keep
then `python research/obliqa/product_chunks.py FOLD [LIMIT [K]]` (the product's virtualenv).
A gold passage counts as found when a top-k chunk holds a piece of it: its opening or closing
60 characters (whitespace-normalised, case-folded), or a piece of the chunk's middle lies inside
the passage. A passage no chunk holds that way (a table, text the rulebook file words
otherwise) cannot be found and is reported apart."""
import asyncio, json, re, sys, time
from pathlib import Path
from regintel.cli.app import open_container
from regintel.settings import get_settings
from regintel.bench.obliqa import selected

def norm(t): return " ".join(re.sub(r"[\u200e\u200f]", "", t).split()).lower()

def relevant(ptext, ctext):
    p, c = norm(ptext), norm(ctext)
    if len(p) <= 60: return p in c
    if p[:60] in c or p[-60:] in c: return True
    mid = c[len(c)//3: len(c)//3 + 80]
    return len(mid) >= 60 and mid in p

async def main(fold, limit, k):
    dmap = json.load(open("/work/shared/data/obliqa/document_map.json"))
    s = get_settings().model_copy(update={"data_dir": Path("/tmp/chunked")})
    qs = selected(Path("/work/shared/data/obliqa/ObliQA_dev.json"), fold=fold, limit=limit)
    async with open_container(s) as c:
        from sqlalchemy import text
        async with c.database.engine.connect() as conn:
            tenant = (await conn.execute(text("select id from tenants where name like 'bench-ingest-%'"))).all()[-1][0]
        docs = {d.title: d for d in await c.documents.list(tenant)}
        chunks = {d.id: await c.chunk_index.document_chunks(tenant, d.id) for d in docs.values()}
        rel_cache = {}
        def gold_chunks(p):
            key = (p.document_id, p.passage_id, p.text[:50])
            if key not in rel_cache:
                d = docs.get(dmap[str(p.document_id)][0])
                rel_cache[key] = {ch.id for ch in chunks[d.id] if relevant(p.text, ch.text)} if d else set()
            return rel_cache[key]
        found = total = mapped = 0; qrec = []; qmap = []; lat = []
        for q in qs:
            t0 = time.perf_counter()
            hits = await c.retriever.search(tenant, q.text, k=k)
            lat.append(time.perf_counter() - t0)
            top = {h.chunk_id for h in hits}
            g = [gold_chunks(p) for p in q.gold]
            total += len(g); mapped += sum(bool(x) for x in g)
            f = sum(bool(x & top) for x in g); found += f
            qrec.append(f / len(g))
            gm = [x for x in g if x]
            if gm: qmap.append(sum(bool(x & top) for x in gm) / len(gm))
        lat.sort()
        print(json.dumps({"fold": fold, "questions": len(qs), "k": k, "gold": total, "gold_mapped": mapped,
                          "passage_recall": round(found / total, 4), "question_recall_mean": round(sum(qrec) / len(qrec), 4),
                          "question_recall_mapped": round(sum(qmap) / len(qmap), 4), "questions_mapped": len(qmap),
                          "p50_ms": round(1000 * lat[len(lat)//2]), "p95_ms": round(1000 * lat[int(len(lat)*0.95)])}))
if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else None,
                     int(sys.argv[3]) if len(sys.argv) > 3 else 10))
