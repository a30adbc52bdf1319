"""Issue 50's short call, measured on the dev answer scenarios (never held-out): the local
model chooses, among the offline engine's best candidate provisions (one sentence each, the
top ``CHOICES`` distinct clauses by the composer's relevance), the one that answers the
question; scored as the scenario bench scores a lead (does the chosen provision's clause
match an expected rule), beside the offline engine's own lead, with each call's seconds.
    .venv/bin/python -m research.experiments.lead_selector [id ...]"""
import asyncio
import re
import statistics
import sys
import time

import httpx

from regintel.bench.scenario_corpus import ingest
from regintel.bench.scenario_data import load_answer_scenarios, parse_rule, rule_matches
from regintel.bench.scenarios import TENANT, score_answer
from research.experiments.scenario_leads import seen  # its capture of the composer's ranking
from regintel.builders import build_local_llm
from regintel.cli.app import open_container
from regintel.domain.chat import ChatRequest
from regintel.retrieval.evidence import clause_of
from regintel.settings import get_settings

CHOICES = 5

PROMPT = """Question: {question}

Which passage answers the question directly? Passages:
{passages}

Reply with the passage number only."""


async def main(ids: list[str]) -> None:
    s = get_settings()
    router, clients, lease = build_local_llm(s)
    base = (await asyncio.to_thread(lease.ensure)).base_url
    async with open_container(s) as c, httpx.AsyncClient(timeout=120) as http:
        corpus = await ingest(c, TENANT, s.demo_data_dir)
        chat = await c.chat()
        rows = []
        for sc in load_answer_scenarios():
            if sc["split"] != "dev" or sc["expect_action"] != "inquire" or not sc["expect_rules"] \
                    or (ids and sc["id"] not in ids):
                continue
            rules = [parse_rule(r, sc["document"]) for r in sc["expect_rules"]]
            thread = None
            tags = tuple(corpus.documents[k].id for k in sc["tags"])
            for i, turn in enumerate(sc["turns"]):
                seen.clear()
                r = await chat.ask(corpus.tenant_id, ChatRequest(
                    message=turn, thread_id=thread, tagged_doc_ids=tags if i == 0 else ()))
                thread = r.thread_id
            offline = score_answer(sc, r, corpus)["passed"]
            cands, rel = seen.get("candidates"), seen.get("relevance")
            if not cands or not rel:
                continue
            options, clauses = [], set()
            for i in sorted(range(len(cands)), key=lambda i: -rel[i]):
                x = cands[i]
                key = (x.hit.document_id, clause_of(x.hit, x.text))
                if key in clauses or x.is_heading:
                    continue
                clauses.add(key)
                options.append(x)
                if len(options) == CHOICES:
                    break

            def right(x) -> bool:
                k = corpus.key_of(x.hit.document_id)
                cl = clause_of(x.hit, x.text)
                return any(k == q.document and rule_matches(cl, q.clause) for q in rules)

            passages = "\n".join(f"{n}. {x.shown[:400]}" for n, x in enumerate(options, 1))
            prompt = PROMPT.format(question=sc["turns"][-1], passages=passages)
            started = time.perf_counter()
            reply = (await http.post(f"{base}/chat/completions", json={
                "messages": [{"role": "user", "content": prompt}], "max_tokens": 3,
                "temperature": 0})).json()["choices"][0]["message"]["content"]
            seconds = time.perf_counter() - started
            m = re.search(r"\d", reply)
            chosen = options[int(m[0]) - 1] if m and 0 < int(m[0]) <= len(options) else None
            ok = chosen is not None and right(chosen)
            reachable = any(right(x) for x in options)
            rows.append((offline, ok, reachable, seconds))
            print(f"{sc['id']:42} offline {int(offline)} model {int(ok)} in-options "
                  f"{int(reachable)} {seconds:5.1f}s reply {reply!r}", flush=True)
        n = len(rows)
        secs = sorted(r[3] for r in rows)
        print(f"n={n} offline {sum(r[0] for r in rows)} model {sum(r[1] for r in rows)} "
              f"reachable {sum(r[2] for r in rows)} p50 {statistics.median(secs):.1f}s "
              f"p95 {secs[int(0.95 * (n - 1))]:.1f}s")
    for client in clients:
        await client.aclose()


asyncio.run(main(sys.argv[1:]))
