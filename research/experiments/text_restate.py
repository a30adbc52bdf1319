"""Can the local model bridge a pasted text's everyday words to a regulation's, leaving the
judging to the offline audit? (issue 35, Done-when 3.) The offline text audit finds a breach
when a sentence sets an act aside in words ("let's not escalate this") and that act is close
to a duty; it misses acts set aside in other words ("purge the files", "remove the
originator's name", "pre-tick the box") and acts worded far from the rule ("escalate" for
"notify"). The model judge (text_judge.py) was rejected for its precision; here the model
only restates each sentence as a plain statement of what will or will not be done, and the
offline audit, unchanged, judges the restatement.

For each text check of the chosen split: its sentences (as the audit reads them), restated
by one schema-constrained call, one statement per sentence; the offline text audit
(``MatrixAuditor.audit_text``) on the statements, one per line. Scored as
``regintel bench scenarios`` scores texts.

    REGINTEL_DATA_DIR=DIR REGINTEL_LLM__PROVIDER=local \\
        python research/experiments/text_restate.py [--split dev]

Thirty-second session (2026-12-02), dev split (20 texts), Qwen2.5-Coder-1.5B-Instruct Q4_K_M:
breaching texts with a rule of their breach found 3 of 10 (the offline audit on the texts
themselves: 2; the restatement found 14.2.2 for "let's not escalate this to the MLRO", which
the offline audit reads as 12.3.1); compliant texts without a finding 5 of 10 (offline: 10 of
10). The model turns what was done into what will not be done ("we notified the supervisory
authority within 48 hours" -> "will not notify the supervisory authority within 48 hours";
"every outgoing wire transfer must carry the originator's name" -> "will not carry the
originator's name"), and returned "will not" alone for the three sentences of one text.
p50 6.8 s a text. Rejected: a restatement that inverts what a sentence says cannot feed an
audit whose findings are claims.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any
from uuid import uuid4

import numpy as np

from regintel.bench.scenario_corpus import ingest
from regintel.bench.scenario_data import load_text_checks, parse_rule, rule_matches
from regintel.bench.scenarios import TENANT
from regintel.retrieval.evidence import CitationBook
from regintel.chat.llm.routing import RouteName
from regintel.cli.app import load_settings, open_container
from regintel.domain.documents import StoredChunk
from regintel.obligations.policy_text import policy_units
from regintel.ports.llm import ChatMessage, DoneChunk, JsonSchemaFormat, TextChunk

TASK = (
    "You restate the sentences of a text written at a firm (an email, a note). For each "
    "numbered sentence write one short plain sentence in the third person that says what the "
    "firm will do or will not do, in general terms, without names. Say 'will not' when the "
    "sentence proposes to skip, delay, remove, delete, stop, avoid, ignore or not do "
    "something. Keep every period, date, number and frequency the sentence gives. Add "
    "nothing the sentence does not say.")


def schema(n: int) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": False, "required": ["statements"],
            "properties": {"statements": {"type": "array", "minItems": n, "maxItems": n,
                                          "items": {"type": "string", "maxLength": 300}}}}


async def main(split: str) -> dict[str, Any]:
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
            text = check["text"]
            chunk = StoredChunk(id=uuid4(), document_id=uuid4(), ordinal=0, text=text,
                                page_start=1, page_end=1, char_start=0, char_end=len(text))
            said = [u.text for u in policy_units([chunk])]
            user = "\n".join(f"{n}. {s}" for n, s in enumerate(said, 1))
            started = time.perf_counter()
            answer = ""
            async for part in model.stream(
                    [ChatMessage(role="system", content=TASK),
                     ChatMessage(role="user", content=user)],
                    response_format=JsonSchemaFormat(name="statements",
                                                     json_schema=schema(len(said))),
                    timeout_s=120):
                if isinstance(part, TextChunk):
                    answer += part.text
                elif isinstance(part, DoneChunk):
                    break
            seconds = time.perf_counter() - started
            try:
                restated = [str(s) for s in json.loads(answer)["statements"]]
            except (ValueError, KeyError, TypeError):
                restated = []
            found = await auditor.audit_text(corpus.tenant_id, [document],
                                             "\n".join(restated) or text, book=CitationBook())
            clauses = [f.target_clause or "?" for f in found.result.findings]
            expected = [parse_rule(r, check["target"]).clause for b in check.get("breaches", [])
                        for r in b["rules"]]
            hit = any(rule_matches(c, e) for c in clauses for e in expected)
            rows_out.append({"id": check["id"], "compliant": check["compliant"],
                             "restated": restated, "findings": clauses, "hit": hit,
                             "seconds": round(seconds, 1)})
            print(json.dumps(rows_out[-1]), flush=True)
        breaching = [r for r in rows_out if not r["compliant"]]
        clean = [r for r in rows_out if r["compliant"]]
        return {"split": split, "model": model.model_name, "breaching": len(breaching),
                "breaching_with_expected": sum(r["hit"] for r in breaching),
                "compliant": len(clean),
                "compliant_without_finding": sum(not r["findings"] for r in clean),
                "seconds_p50": float(np.median([r["seconds"] for r in rows_out]))
                if rows_out else None}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", default="dev", choices=("dev", "heldout", "all"))
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main(args.split)), indent=2))
