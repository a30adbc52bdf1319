"""A model's proposals for the review queue (issue 47): with a model configured, it reads the
queue's rows in batches - each rule beside its candidate clauses - and proposes a status for
each, with the clause that meets it and its reason. A proposal is labelled as the model's,
its quote is kept only when it is verbatim in the candidate it names, and it never becomes a
decision or a finding: the officer decides.

The offline engine's proposal stands wherever the model's does not verify, does not answer
in time, or fails: the model can only lift the queue, never break it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Sequence
from typing import Any

from regintel.domain.coverage import CoverageRow, Proposal
from regintel.ports.llm import (
    ChatMessage,
    ChatModel,
    DoneChunk,
    ErrorChunk,
    JsonSchemaFormat,
    TextChunk,
)

log = logging.getLogger(__name__)

BATCH = 5
RULE_CHARS = 700
CLAUSE_CHARS = 400
STATUSES: dict[str, Proposal] = {"met": "met", "partly_met": "unclear", "missing": "missing",
                                 "contradicted": "contradicted"}
_SYSTEM = ("You review a company policy against regulatory obligations. For each numbered "
           "obligation you get the policy's candidate clauses. Say whether the clauses meet "
           "the obligation: met, partly_met, missing (no clause meets it) or contradicted (a "
           "clause says something the obligation does not allow). Name the candidate that "
           "meets or contradicts it, copy the exact words of that candidate that show it, and "
           "give a reason in one sentence. Use only the text given; answer in JSON.")
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"rows": {"type": "array", "items": {
        "type": "object",
        "properties": {
            "row": {"type": "integer"},
            "status": {"type": "string", "enum": sorted(STATUSES)},
            "candidate": {"type": ["integer", "null"]},
            "quote": {"type": ["string", "null"]},
            "reason": {"type": "string"}},
        "required": ["row", "status", "reason"]}}},
    "required": ["rows"]}


def prompt(rows: Sequence[CoverageRow]) -> str:
    lines = []
    for n, row in enumerate(rows, start=1):
        o = row.obligation
        text = " ".join([o.text, *(f"{i.label} {i.text}" for i in o.items)])[:RULE_CHARS]
        lines.append(f"Obligation {n} ({o.rule or 'no number'}): {text}")
        for k, quote in enumerate(row.policy_quotes, start=1):
            lines.append(f"  Candidate {k}: {quote.quote[:CLAUSE_CHARS]}")
        if not row.policy_quotes:
            lines.append("  No candidate clause.")
    return "\n".join(lines)


def _verbatim(quote: str, text: str) -> bool:
    said = " ".join(quote.split())
    return bool(said) and said in " ".join(text.split())


def applied(rows: Sequence[CoverageRow], answer: dict[str, Any], model: str
            ) -> list[CoverageRow]:
    """The rows with the model's verified proposals; a proposal that names no real row or
    candidate, or quotes words its candidate does not hold, is dropped."""
    out = list(rows)
    for item in answer.get("rows") or []:
        if not isinstance(item, dict):
            continue
        n, status = item.get("row"), item.get("status")
        if not isinstance(n, int) or not 1 <= n <= len(rows) or status not in STATUSES:
            continue
        row = rows[n - 1]
        candidate, quote = item.get("candidate"), item.get("quote")
        shown = ""
        if isinstance(candidate, int) and 1 <= candidate <= len(row.policy_quotes):
            clause = row.policy_quotes[candidate - 1]
            if isinstance(quote, str) and quote.strip():
                if not _verbatim(quote, clause.quote):
                    continue  # an invented quote drops the whole proposal
                shown = f" (\"{' '.join(quote.split())}\", candidate {candidate})"
        elif status in ("met", "partly_met", "contradicted"):
            continue  # a claim about the policy with no clause to show for it
        reason = str(item.get("reason") or "").strip().replace("\n", " ")[:300]
        out[n - 1] = row.model_copy(update={
            "proposed": STATUSES[status], "proposed_by": f"model: {model}",
            "reason": f"{model} proposes {status.replace('_', ' ')}{shown}: {reason}"})
    return out


async def _ask(model: ChatModel, rows: Sequence[CoverageRow], timeout_s: float
               ) -> dict[str, Any] | None:
    messages = [ChatMessage(role="system", content=_SYSTEM),
                ChatMessage(role="user", content=prompt(rows))]
    fmt = JsonSchemaFormat(name="review", json_schema=SCHEMA, strict=False) \
        if model.supports_json_schema else None
    text: list[str] = []

    async def read() -> bool:
        async with contextlib.aclosing(model.stream(messages, response_format=fmt,
                                                    temperature=0.0,
                                                    timeout_s=timeout_s)) as chunks:
            async for chunk in chunks:
                if isinstance(chunk, TextChunk):
                    text.append(chunk.text)
                elif isinstance(chunk, ErrorChunk):
                    log.warning("the model's review failed: %s", chunk.message)
                    return False
                elif isinstance(chunk, DoneChunk):
                    break
        return True

    try:
        if not await asyncio.wait_for(read(), timeout_s):
            return None
    except TimeoutError:
        log.warning("the model's review did not finish in %.0f s", timeout_s)
        return None
    said = "".join(text).strip()
    start, end = said.find("{"), said.rfind("}")
    try:
        parsed = json.loads(said[start:end + 1]) if start >= 0 else None
    except json.JSONDecodeError:
        return None
    return parsed if isinstance(parsed, dict) else None


async def propose(model: ChatModel, rows: Sequence[CoverageRow], *, timeout_s: float,
                  batch: int = BATCH) -> list[CoverageRow]:
    """The rows with the model's proposals, read BATCH at a time, each batch within
    ``timeout_s``; a batch that fails keeps the engine's proposals."""
    out: list[CoverageRow] = []
    for start in range(0, len(rows), batch):
        chunk = list(rows[start:start + batch])
        answer = await _ask(model, chunk, timeout_s)
        out += applied(chunk, answer, model.model_name) if answer else chunk
    return out
