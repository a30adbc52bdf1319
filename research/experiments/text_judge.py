"""Can the local model tell which rule a pasted text breaks, given the rules its sentences
reach? (issue 35, Done-when 3; issue 36's "the model judges the rows the matrix is unsure
of".) The offline text audit finds the right neighbourhood but often the wrong rule of it
(12.3.1 for 14.2.2, Art. 45 for Art. 46), or no breach where the act is not set aside in
words ("proceed with the account opening" with a shell bank).

For each text check of the chosen split: the regulation's rows the text's sentences reach
(``obligations.reach.in_reach``, as the offline audit reads them), the ``CANDIDATES`` binding
rows closest to any of its sentences, numbered R1…; one schema-constrained call asks the
model which of them the text proposes to break, with the text's own words. Scored as
``regintel bench scenarios`` scores texts: a breaching text counts when a rule of one of its
breaches is named; a compliant text when nothing is.

    REGINTEL_DATA_DIR=DIR REGINTEL_LLM__PROVIDER=local \\
        python research/experiments/text_judge.py [--split dev] [--candidates 6]

DIR holds the scenario corpus (``regintel bench scenarios`` ingests it) and a model set in
use (``regintel model use …``). Development texts only, unless told otherwise.

Thirty-first session (2026-12-02), dev split (20 texts), Qwen2.5-Coder-1.5B-Instruct Q4_K_M,
6 candidates: breaching texts with a rule of their breach named 3 of 10 (the offline audit: 2;
the model found the stripped originator details and the pre-ticked consent, which the offline
audit misses); the expected rule was among the 6 candidates for 7 of 10; but only 2 of the 10
compliant texts were left without a finding (the offline audit: 10 of 10) - the model names a
rule for almost any text ("we will erase it without undue delay" against Art. 17) - and 6 of
its 23 quoted "words" only were verbatim. p50 6.5 s a text. So the small model cannot be the
judge of a text on its own: its precision is far below the offline audit's. Rejected as the
text check's judge; a model that reads compliance as well as breach is needed first."""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from regintel.bench.scenario_corpus import ingest
from regintel.bench.scenario_data import load_text_checks, parse_rule, rule_matches
from regintel.bench.scenarios import TENANT
from regintel.retrieval.evidence import sentences
from regintel.chat.llm.routing import RouteName
from regintel.cli.app import load_settings, open_container
from regintel.obligations.lexical import content_words
from regintel.obligations.matrix import closeness, row_text
from regintel.obligations.reach import in_reach
from regintel.ports.llm import ChatMessage, DoneChunk, JsonSchemaFormat, TextChunk

TASK = (
    "You check a text written at a regulated firm (an email, a note, a draft) against rules "
    "of a regulation. Name each rule the text proposes or describes breaking: doing what the "
    "rule forbids, or not doing, doing late or doing differently what it requires. Quote the "
    "text's own words that break it. A rule the text complies with, or does not touch, is not "
    "a breach. If the text breaks none of the rules, answer an empty list.")
SCHEMA = {
    "type": "object", "additionalProperties": False, "required": ["breaches"],
    "properties": {"breaches": {"type": "array", "maxItems": 4, "items": {
        "type": "object", "additionalProperties": False, "required": ["rule", "words"],
        "properties": {"rule": {"type": "string", "pattern": "^R[0-9]{1,2}$"},
                       "words": {"type": "string", "maxLength": 300}}}}}}


async def main(split: str, candidates: int) -> dict[str, Any]:
    async with open_container(load_settings()) as container:
        corpus = await ingest(container, TENANT, Path("../shared/data"))
        await container.chat()
        router = container.llm_router
        if router is None:
            raise SystemExit("no model: set REGINTEL_LLM__PROVIDER=local")
        model = router.for_tenant(str(corpus.tenant_id))[RouteName.AUDIT].model
        auditor = container.matrix_auditor()
        rows_out = []
        for check in load_text_checks():
            if split != "all" and check["split"] != split:
                continue
            document = corpus.documents[check["target"]]
            regulation = await auditor.regulation(corpus.tenant_id, document)
            said = [s.strip() for s in sentences(check["text"]) if s.strip()]
            reached = await in_reach(container.retriever, corpus.tenant_id, regulation, said)
            binding = [i for i, r in enumerate(reached.rows) if r.strength != "recommendation"]
            vectors = np.asarray(container.embedder.embed(said), dtype=np.float32)
            score = closeness(reached.vectors[binding],
                              [row_text(reached.rows[i]) for i in binding], vectors,
                              [content_words(s) for s in said]).max(axis=1) \
                if binding else np.zeros(0)
            shown = [reached.rows[binding[int(j)]] for j in np.argsort(-score)[:candidates]]
            rules = "\n\n".join(f"[R{n}] {r.rule}: {row_text(r)}" for n, r in
                                enumerate(shown, 1))
            user = f"RULES ({document.title}):\n\n{rules}\n\nTEXT:\n{check['text']}"
            started = time.perf_counter()
            answer = ""
            async for chunk in model.stream(
                    [ChatMessage(role="system", content=TASK),
                     ChatMessage(role="user", content=user)],
                    response_format=JsonSchemaFormat(name="breaches", json_schema=SCHEMA),
                    timeout_s=120):
                if isinstance(chunk, TextChunk):
                    answer += chunk.text
                elif isinstance(chunk, DoneChunk):
                    break
            seconds = time.perf_counter() - started
            try:
                named = [shown[int(b["rule"][1:]) - 1].rule for b in json.loads(answer)[
                    "breaches"] if 1 <= int(b["rule"][1:]) <= len(shown)]
                words = [b["words"] for b in json.loads(answer)["breaches"]]
            except (ValueError, KeyError, TypeError):
                named, words = [], []
            verbatim = [w for w in words if w and w in check["text"]]
            expected = [parse_rule(r, check["target"]).clause for b in check.get("breaches", [])
                        for r in b["rules"]]
            shown_expected = any(rule_matches(r.rule, e) for r in shown for e in expected)
            hit = any(rule_matches(n, e) for n in named for e in expected)
            rows_out.append({"id": check["id"], "compliant": check["compliant"],
                             "expected_shown": shown_expected, "named": named,
                             "hit": hit, "words_verbatim": f"{len(verbatim)}/{len(words)}",
                             "seconds": round(seconds, 1)})
            print(json.dumps(rows_out[-1]), flush=True)
        breaching = [r for r in rows_out if not r["compliant"]]
        clean = [r for r in rows_out if r["compliant"]]
        return {"split": split, "candidates": candidates, "model": model.model_name,
                "breaching": len(breaching),
                "breaching_with_expected": sum(r["hit"] for r in breaching),
                "expected_among_candidates": sum(r["expected_shown"] for r in breaching),
                "compliant": len(clean),
                "compliant_without_finding": sum(not r["named"] for r in clean),
                "seconds_p50": float(np.median([r["seconds"] for r in rows_out]))
                if rows_out else None}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", default="dev", choices=("dev", "heldout", "all"))
    parser.add_argument("--candidates", type=int, default=6)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main(args.split, args.candidates)), indent=2))
