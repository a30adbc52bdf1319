"""ObliQA fold 0 (tuning): answers with RULE_MARGIN variants; corpus loaded once."""
import asyncio, sys, statistics, json
from pathlib import Path
from regintel.cli.app import open_container
from regintel.settings import get_settings
from regintel.bench.obliqa import corpus_tenant, selected
from regintel.retrieval.evidence import CitationBook
from regintel.chat.offline import compose
from regintel.chat.tools import LIBRARY_HITS
from regintel.retrieval import list_context, preceding

VARIANTS = [None, 0.0, 0.02, 0.05]
async def main(fold, limit):
    s = get_settings().model_copy(update={"data_dir": Path("/tmp/benchdata")})
    qs = selected(Path("../shared/data/obliqa/ObliQA_dev.json"), fold=fold, limit=limit)
    rows = {str(v): [] for v in VARIANTS}
    async with open_container(s) as c:
        async with corpus_tenant(c, Path("../shared/data/obliqa/passages"), cache_dir=s.data_dir / "cache") as loaded:
            t = loaded.tenant_id
            for q in qs:
                hits = await c.retriever.search(t, q.text, k=LIBRARY_HITS)
                hits = await preceding.attach(c.chunk_index, t, hits)
                hits += await list_context.complete(c.chunk_index, t, hits)
                gold = loaded.gold_chunks(q)
                asks = compose.asks_requirements(q.text)
                for v in VARIANTS:
                    compose.RULE_MARGIN = v
                    book = CitationBook()
                    await compose.inquiry(c.embedder, q.text, hits, book, caution=False)
                    cited = {x.chunk_id for x in book.citations}
                    rows[str(v)].append((asks, len(cited), len(cited & gold)))
    for v, r in rows.items():
        for name, sub in (("all", r), ("asks", [x for x in r if x[0]])):
            p = sum(x[1] for x in sub); g = sum(x[2] for x in sub)
            print(f"margin {v:>5} {name:4} n={len(sub)} passages/answer {p/len(sub):.2f} gold passage share {g/p:.4f} answers citing gold {statistics.fmean(x[2] > 0 for x in sub):.4f}")
asyncio.run(main(int(sys.argv[1]), int(sys.argv[2])))
