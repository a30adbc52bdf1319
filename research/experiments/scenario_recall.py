"""Where retrieval ranks the expected rule of each dev answer scenario (never held-out): the
rank of the first hit whose clause labels (running clause of each sentence) match an expected
rule, searching the last turn's question (with earlier turns, as chat does) over the library.
    .venv/bin/python -m research.experiments.scenario_recall [k]"""
import asyncio
import sys

from regintel.bench.scenario_corpus import ingest
from regintel.bench.scenario_data import load_answer_scenarios, parse_rule, rule_matches
from regintel.bench.scenarios import TENANT
from regintel.chat import question_text
from regintel.cli.app import open_container
from regintel.ingestion.clauses import find_clauses
from regintel.settings import get_settings


async def main(k: int) -> None:
    s = get_settings()
    async with open_container(s) as c:
        corpus = await ingest(c, TENANT, s.demo_data_dir)
        for sc in load_answer_scenarios():
            if sc["split"] != "dev" or sc["expect_action"] != "inquire":
                continue
            turns = sc["turns"]
            query = question_text.in_context(turns[-1], turns[:-1]) if len(turns) > 1 else turns[-1]
            rules = [parse_rule(r, sc["document"]) for r in sc["expect_rules"]]
            hits = await c.retriever.search(corpus.tenant_id, query, k=k)
            rank = None
            for i, h in enumerate(hits):
                key = corpus.key_of(h.document_id)
                labels = [h.clause, h.clause_before, *(lab for _, lab in find_clauses(h.text))]
                if any(key == r.document and any(rule_matches(l, r.clause) for l in labels)
                       for r in rules):
                    rank = i + 1
                    break
            print(f"{sc['id']:45} rank {rank}")


asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 40))
