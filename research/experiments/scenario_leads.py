"""For dev answer scenarios (never held-out): the candidate sentences of the last turn's answer
ranked by the composer's relevance, marking those of an expected rule - to see what signal
would lead with the rule. .venv/bin/python -m research.experiments.scenario_leads [id ...]"""
import asyncio
import sys

from regintel.bench.scenario_corpus import ingest
from regintel.bench.scenario_data import load_answer_scenarios, parse_rule, rule_matches
from regintel.bench.scenarios import TENANT
from regintel.chat.offline import compose
from regintel.cli.app import open_container
from regintel.domain.chat import ChatRequest
from regintel.retrieval.evidence import clause_of
from regintel.settings import get_settings

seen: dict[str, object] = {}
_sentences_of, _mmr = compose.sentences_of, compose.mmr


def sentences_of(*a, **k):
    seen["candidates"] = out = _sentences_of(*a, **k)
    return out


def mmr(relevance, *a, **k):
    seen.setdefault("relevance", list(relevance))
    return _mmr(relevance, *a, **k)


compose.sentences_of, compose.mmr = sentences_of, mmr


async def main(ids: list[str]) -> None:
    s = get_settings()
    async with open_container(s) as c:
        corpus = await ingest(c, TENANT, s.demo_data_dir)
        chat = await c.chat()
        for sc in load_answer_scenarios():
            if sc["split"] != "dev" or (ids and sc["id"] not in ids):
                continue
            rules = [parse_rule(r, sc["document"]) for r in sc["expect_rules"]]
            thread = None
            tags = tuple(corpus.documents[k].id for k in sc["tags"])
            for i, turn in enumerate(sc["turns"]):
                seen.clear()
                r = await chat.ask(corpus.tenant_id, ChatRequest(
                    message=turn, thread_id=thread, tagged_doc_ids=tags if i == 0 else ()))
                thread = r.thread_id
            cands, rel = seen.get("candidates"), seen.get("relevance")
            print("=" * 90, "\n", sc["id"], sc["turns"][-1], sc["expect_rules"])
            if not cands or not rel:
                print("  (no inquiry composed)")
                continue
            order = sorted(range(len(cands)), key=lambda i: -rel[i])
            for rank, i in enumerate(order[:14]):
                x = cands[i]
                key = corpus.key_of(x.hit.document_id)
                clause = clause_of(x.hit, x.text)
                hit = any(key == q.document and rule_matches(clause, q.clause) for q in rules)
                print(f"  {'*' if hit else ' '} {rank:2} {rel[i]:.3f} b={int(x.binds)} "
                      f"{key} {clause} | {x.clean[:110]}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
