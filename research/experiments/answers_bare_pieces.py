"""ObliQA fold 0 (tuning): answers with and without dropping bare list pieces after the lead
(compose._bare_piece); corpus loaded once. .venv/bin/python -m
research.experiments.answers_bare_pieces <fold> <limit>"""
import asyncio, sys, statistics
from pathlib import Path
from regintel.cli.app import open_container
from regintel.settings import get_settings
from regintel.bench.obliqa import corpus_tenant, selected
from regintel.retrieval.evidence import CitationBook
from regintel.chat.offline import compose
from regintel.chat.tools import LIBRARY_HITS
from regintel.retrieval import reading

DROP = compose._bare_piece


async def main(fold, limit):
    s = get_settings().model_copy(update={"data_dir": Path("/tmp/benchdata")})
    qs = selected(Path("../shared/data/obliqa/ObliQA_dev.json"), fold=fold, limit=limit)
    rows = {"drop": [], "keep": []}
    async with open_container(s) as c:
        async with corpus_tenant(c, Path("../shared/data/obliqa/passages"), cache_dir=s.data_dir / "cache") as loaded:
            t = loaded.tenant_id
            for q in qs:
                hits = await c.retriever.search(t, q.text, k=LIBRARY_HITS)
                hits = await reading.around(c.chunk_index, t, hits, q.text)
                gold = loaded.gold_chunks(q)
                for name, fn in (("drop", DROP), ("keep", lambda s: False)):
                    compose._bare_piece = fn
                    book = CitationBook()
                    await compose.inquiry(c.embedder, q.text, hits, book, caution=False)
                    cited = {x.chunk_id for x in book.citations}
                    rows[name].append((len(cited), len(cited & gold)))
    for name, r in rows.items():
        p = sum(x[0] for x in r); g = sum(x[1] for x in r)
        print(f"{name}: n={len(r)} passages/answer {p/len(r):.2f} gold passage share {g/p:.4f} "
              f"answers citing gold {statistics.fmean(x[1] > 0 for x in r):.4f}")
asyncio.run(main(int(sys.argv[1]), int(sys.argv[2])))
