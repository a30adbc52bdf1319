"""Print the answers of dev answer scenarios (never held-out ones): each turn's answer, its
citations and the score, to read why a scenario fails. Usage:
    .venv/bin/python -m research.experiments.scenario_show [id ...] [--failing]"""
import asyncio
import sys

from regintel.bench.scenario_corpus import ingest
from regintel.bench.scenario_data import load_answer_scenarios
from regintel.bench.scenarios import TENANT, score_answer
from regintel.cli.app import open_container
from regintel.domain.chat import ChatRequest
from regintel.settings import get_settings


async def main(ids: list[str], failing: bool) -> None:
    s = get_settings()
    scenarios = [x for x in load_answer_scenarios() if x["split"] == "dev"
                 and (not ids or x["id"] in ids)]
    async with open_container(s) as c:
        corpus = await ingest(c, TENANT, s.demo_data_dir)
        chat = await c.chat()
        for sc in scenarios:
            tags = tuple(corpus.documents[k].id for k in sc["tags"])
            thread, out = None, []
            for i, turn in enumerate(sc["turns"]):
                r = await chat.ask(corpus.tenant_id, ChatRequest(
                    message=turn, thread_id=thread, tagged_doc_ids=tags if i == 0 else ()))
                thread = r.thread_id
                out.append((turn, r))
            score = score_answer(sc, r, corpus)
            if failing and score["passed"]:
                continue
            print("=" * 100)
            print(sc["id"], "PASS" if score["passed"] else "FAIL", "expect", sc["expect_rules"],
                  "tags", sc["tags"], "conf", score["confidence"])
            for turn, r in out:
                print(f"--- Q: {turn}")
                print(r.answer[:1400])
            print("  cites:", [(c.n, corpus.key_of(c.document_id), c.clause) for c in r.citations][:12])


args = [a for a in sys.argv[1:] if not a.startswith("--")]
asyncio.run(main(args, "--failing" in sys.argv))
