"""``regintel bench llm``: the local model on held-out ObliQA questions (fold 1), each answered
twice on the same evidence - by the offline engine and by the model (the LLM engine's streamed
inquiry, falling back as a chat turn does) - and compared:

* speed: prefill tokens/s (the prompt's tokens over the time to the first token), generation
  tokens/s (the streamed tokens after the first, over the time they took), first-token
  latency p50/p95, and the turn time (search, reading, answer) p50/p95 per engine;
* the share of the model's steps that fell back (per step, with the reasons);
* the gold-citation rate: the share of answers citing at least one ObliQA gold passage and
  the share of citations that are gold, for the offline engine and the model's answers (the
  final answers, fallbacks included, and the answers the model wrote itself).

Tokens: llama.cpp's server streams one token per event, and counts a prompt's tokens with
its own tokenizer (``/extras/tokenize/count``) - no estimate from characters."""

from __future__ import annotations

import json
import os
import statistics
import time
from collections import Counter
from collections.abc import AsyncGenerator, Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from regintel.adapters.llm import machine_speed
from regintel.adapters.llm.machine_speed import Estimate, Speed
from regintel.bench.metrics import percentile
from regintel.bench.obliqa import Question, corpus_tenant, selected
from regintel.chat.llm.engine import LlmEngine
from regintel.chat.llm.routing import Route, RouteName, TenantRoutes
from regintel.chat.llm.verified import EXAMPLE_PHRASES, leaked, phrases
from regintel.chat.offline import compose
from regintel.chat.offline.engine import OfflineEngine
from regintel.chat.tools import LIBRARY_HITS
from regintel.domain.chat import EngineChoice
from regintel.ports.llm import (
    ChatMessage,
    ChatModel,
    JsonSchemaFormat,
    LlmStreamChunk,
    TextChunk,
    ToolSpec,
)
from regintel.retrieval import reading
from regintel.retrieval.evidence import CitationBook

if TYPE_CHECKING:
    from regintel.container import Container


class TimedModel:
    """A ``ChatModel`` that times each call: first event, streamed tokens, end."""

    def __init__(self, model: ChatModel) -> None:
        self._model = model
        self.model_name = model.model_name
        self.supports_tools = model.supports_tools
        self.supports_json_schema = model.supports_json_schema
        self.supports_streaming = model.supports_streaming
        self.calls: list[dict[str, Any]] = []

    async def stream(self, messages: Sequence[ChatMessage], *,
                     tools: Sequence[ToolSpec] | None = None,
                     response_format: JsonSchemaFormat | None = None, model: str | None = None,
                     temperature: float | None = 0.0,
                     timeout_s: float | None = None) -> AsyncGenerator[LlmStreamChunk, None]:
        start = time.perf_counter()
        call: dict[str, Any] = {"prompt": "\n".join(m.content or "" for m in messages),
                                "first_s": None, "tokens": 0}
        self.calls.append(call)
        async for chunk in self._model.stream(messages, tools=tools,
                                              response_format=response_format, model=model,
                                              temperature=temperature, timeout_s=timeout_s):
            if isinstance(chunk, TextChunk):
                if call["first_s"] is None:
                    call["first_s"] = time.perf_counter() - start
                call["tokens"] += 1
            yield chunk
        call["total_s"] = time.perf_counter() - start


def _gold(rows: list[dict[str, Any]], key: str) -> dict[str, Any]:
    cited = sum(r[key]["cited"] for r in rows)
    return {"answers": len(rows),
            "answers_citing_gold": round(statistics.fmean(r[key]["gold"] > 0 for r in rows), 4)
            if rows else None,
            "gold_share": round(sum(r[key]["gold"] for r in rows) / cited, 4) if cited else None}


def _ms(values: list[float], p: int) -> float | None:
    return round(percentile(values, p) * 1000, 1) if values else None


def done_ids(rows_file: Path | None) -> set[str]:
    """The question ids already answered in ``rows_file`` (none when it is absent)."""
    return {r["question_id"] for r in read_rows(rows_file)} if rows_file else set()


def read_rows(rows_file: Path) -> list[dict[str, Any]]:
    """The result rows of ``rows_file``, one JSON object a line; a last line cut short by a
    stop mid-write is skipped, and a question answered twice counts once (its first row)."""
    if not rows_file.exists():
        return []
    rows: dict[str, dict[str, Any]] = {}
    for line in rows_file.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(row, dict) and "question_id" in row:
            rows.setdefault(row["question_id"], row)
    return list(rows.values())


def append_row(rows_file: Path, row: dict[str, Any]) -> None:
    """Append one question's row, flushed at once, so a stopped run keeps what it measured."""
    rows_file.parent.mkdir(parents=True, exist_ok=True)
    with rows_file.open("a", encoding="utf-8") as out:
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
        out.flush()
        os.fsync(out.fileno())


def figures(rows: list[dict[str, Any]], *, model: str, context_tokens: int,
            passages: int, speed: Speed | None = None) -> dict[str, Any]:
    """The bench's figures over result rows (each with its model ``calls``: ``first_s``,
    ``total_s``, ``tokens``, ``prompt_tokens``)."""
    calls = [c for r in rows for c in r["calls"]
             if c.get("first_s") is not None and c.get("total_s")]
    prefill = [c["prompt_tokens"] / c["first_s"] for c in calls if c.get("prompt_tokens")]
    generation = [(c["tokens"] - 1) / (c["total_s"] - c["first_s"]) for c in calls
                  if c["tokens"] > 1 and c["total_s"] > c["first_s"]]
    firsts = [c["first_s"] for c in calls]
    fallbacks = Counter(f.split(":")[0] for r in rows for f in r["fallbacks"])
    reasons = Counter(f for r in rows for f in r["fallbacks"])
    model_rows = [r for r in rows if not r["fallbacks"]]
    checked = [r for r in rows if "example_phrases" in r]
    return {
        "model": model, "context_tokens": context_tokens,
        "questions": len(rows), "fold": 1, "passages": passages,
        "prefill_tokens_per_s": round(statistics.median(prefill), 1) if prefill else None,
        "generation_tokens_per_s": round(statistics.median(generation), 1)
        if generation else None,
        "prompt_tokens_p50": statistics.median([c["prompt_tokens"] for c in calls
                                                if c.get("prompt_tokens")]) if prefill else None,
        "first_token_p50_ms": _ms(firsts, 50), "first_token_p95_ms": _ms(firsts, 95),
        # What the product tells a user a typical turn's first token costs here (timed at
        # the bench's start, as on first start), beside the p50 measured on the questions.
        "first_token_estimate_s": Estimate.of(speed).first_token_s if speed else None,
        "machine_speed": asdict(speed) if speed else None,
        # Answers repeating a phrase of the prompt's worked example (rows written before the
        # check was added are not counted: ``example_leaks_checked``).
        "example_leaks": sum(bool(r["example_phrases"]) for r in checked),
        "example_leaks_checked": len(checked),
        "turn_ms": {"inquire_llm": {"p50": _ms([r["llm_s"] for r in rows], 50),
                                    "p95": _ms([r["llm_s"] for r in rows], 95)},
                    "inquire_offline": {"p50": _ms([r["offline_s"] for r in rows], 50),
                                        "p95": _ms([r["offline_s"] for r in rows], 95)}},
        "fallback_share": {"compose_inquiry": round(fallbacks["compose_inquiry"] / len(rows), 4)
                           if rows else None},
        "fallback_reasons": dict(reasons.most_common(8)),
        "gold": {"offline": _gold(rows, "offline"), "llm": _gold(rows, "llm"),
                 "llm_model_written": _gold(model_rows, "llm")},
    }


async def run(container: Container, corpus_dir: Path, questions_path: Path, *,
              limit: int | None = None, cache_dir: Path | None = None,
              rows_file: Path | None = None) -> dict[str, Any]:
    """Answer the selected questions; with ``rows_file``, each question's row is appended as
    soon as it is answered, questions already there are skipped, and the figures cover every
    row in the file (so a long run can be stopped and continued)."""
    # The local model's routes, though this machine may be too slow for it to be the
    # default (the server starts on demand).
    router = await container.llm_router(EngineChoice.LOCAL)
    if router is None:
        raise RuntimeError("no model is configured: set REGINTEL_LLM__PROVIDER=local")
    questions = selected(questions_path, fold=1, limit=limit)
    done = done_ids(rows_file)
    speed = await machine_speed.measure(router.for_tenant("bench")[RouteName.INQUIRE].model,
                                        timeout_s=container.settings.llm.local.timeout_s)
    machine_speed.keep(container.settings.data_dir, speed)
    offline = OfflineEngine(container.embedder)
    rows: list[dict[str, Any]] = []
    async with corpus_tenant(container, corpus_dir, cache_dir=cache_dir) as loaded:
        routes = router.for_tenant(str(loaded.tenant_id))
        route = routes[RouteName.INQUIRE]
        for question in questions:
            if question.question_id in done:
                continue
            timed = TimedModel(route.model)
            row = await _one(container, loaded, question, offline, route, timed)
            # The server's own tokenizer counts each prompt (``count_tokens``: wherever the
            # server listens now, a restarted one included).
            count = getattr(route.model, "count_tokens", None)
            for call in timed.calls:
                if call["first_s"] is not None and call.get("total_s") and count is not None:
                    call["prompt_tokens"] = await count(call["prompt"])
            row = {"question_id": question.question_id, "model": route.model_name, **row,
                   "calls": timed.calls}
            rows.append(row)
            if rows_file is not None:
                append_row(rows_file, row)
        passages = loaded.chunk_count
    if rows_file is not None:
        rows = read_rows(rows_file)
    return figures(rows, model=route.model_name, context_tokens=route.context_tokens,
                   passages=passages, speed=speed)


async def _one(container: Container, loaded: Any, question: Question, offline: OfflineEngine,
               route: Route, timed: TimedModel) -> dict[str, Any]:
    tenant_id = loaded.tenant_id
    start = time.perf_counter()
    hits = await container.retriever.search(tenant_id, question.text, k=LIBRARY_HITS)
    hits = await reading.around(container.chunk_index, tenant_id, hits, question.text)
    searched = time.perf_counter() - start
    gold = loaded.gold_chunks(question)

    def scored(book: CitationBook) -> dict[str, int]:
        cited = [c.chunk_id for c in book.citations]
        return {"cited": len(cited), "gold": sum(c in gold for c in cited)}

    began = time.perf_counter()
    offline_book = CitationBook()
    await compose.inquiry(container.embedder, question.text, hits, offline_book, caution=False)
    offline_s = searched + time.perf_counter() - began
    # The route's window, as the chat's engine sees it, over the timed model.
    engine = LlmEngine(TenantRoutes({r: replace(route, model=timed) for r in RouteName}),
                       offline, timeout_s=container.settings.llm.local.timeout_s)
    began = time.perf_counter()
    llm_book = CitationBook()
    composed = await engine.compose_inquiry(question.text, hits, llm_book, caution=False)
    llm_s = searched + time.perf_counter() - began
    # The worked example's phrases in the answer, bar those the evidence also says.
    copied = leaked(composed.answer, EXAMPLE_PHRASES, phrases(*(h.text for h in hits)))
    return {"offline": scored(offline_book), "llm": scored(llm_book), "offline_s": offline_s,
            "llm_s": llm_s, "fallbacks": [f"{f.step.value}: {f.reason}"
                                          for f in engine.fallbacks],
            "answer": composed.answer, "example_phrases": copied}
