"""What our pipeline adds to a model's latency, on the LLM engine.

A local OpenAI-compatible stub answers every call after a fixed first-token delay; the chat
pipeline runs the 20 inquire questions of ``bench chat`` over the demo corpus through the real
adapter. The stub runs in a process of its own, as a provider would be elsewhere. For each turn
we know, from the stub's clock (``perf_counter`` is the system's monotonic clock, shared by both
processes), when each model call arrived, when its first token left and when it ended, and
from the client side when the first ``text`` event and the final ``meta`` event came.
So per turn:

- ``overhead_first_token`` = time to the first text event − time spent waiting on the model
  before it (earlier calls of the turn, whole; the main call up to its first token): everything
  our pipeline does before the user sees a word — guardrails, triage, retrieval, the egress
  guard, prompt building — plus the stream path;
- ``stream_path`` = first text event − the stub sending the main call's first token: what the
  adapter, citation renumbering, the graph's stream and the service add per token;
- ``overhead_total`` = turn time − time inside model calls.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from regintel.bench.adgm_corpus import ingest_demo
from regintel.bench.chat import QUESTIONS
from regintel.bench.llm_stub import CallTiming, StubBehaviour, StubProcess, StubServer
from regintel.bench.metrics import percentile
from regintel.container import Container
from regintel.domain.chat import ChatRequest, ChatResponse
from regintel.settings import LlmModel, LlmSettings, Settings

TENANT = "bench-llm"
Opener = Callable[[Settings], AbstractAsyncContextManager[Container]]


def llm_settings(base_url: str, *, external: bool) -> LlmSettings:
    return LlmSettings(base_url=base_url, api_key=SecretStr("sk-bench"), external=external,
                       timeout_s=30.0, models={"small": LlmModel(name="stub-small"),
                                               "large": LlmModel(name="stub-large")})


async def run(settings: Settings, opener: Opener, rulebooks: Path, *,
              first_token_ms: float = 300.0, external: bool = True, rounds: int = 1,
              in_process: bool = False) -> dict[str, Any]:
    """``opener`` opens (and migrates) a container for the given settings. The stub runs in a
    process of its own, as a provider does (``in_process``: a thread of ours, whose work then
    competes with the pipeline for the interpreter lock and counts as overhead)."""
    delay = first_token_ms / 1000
    stub: StubProcess | StubServer = StubServer(StubBehaviour(first_token_delay_s=delay)) \
        if in_process else StubProcess(delay)
    with stub:
        configured = settings.model_copy(
            update={"llm": llm_settings(stub.base_url, external=external)})
        async with opener(configured) as container:
            return await _measure(container, rulebooks, stub, rounds) | {
                "first_token_delay_ms": first_token_ms, "external_provider": external,
                "stub": "thread" if in_process else "process",
                "targets": {"overhead_first_token_p95_ms": 50.0}}


async def _measure(container: Container, rulebooks: Path, stub: StubProcess | StubServer,
                   rounds: int) -> dict[str, Any]:
    corpus = await ingest_demo(container, TENANT, rulebooks)
    chat = await container.chat()
    await chat.ask(corpus.tenant_id, ChatRequest(message=QUESTIONS[0]))  # loads the models
    await asyncio.to_thread(stub.take_timings)
    # As the server does once warm (api.deps): the start-up heap leaves the collector's reach,
    # so a full collection over the loaded models does not land on a measured turn.
    gc.freeze()
    rows: list[dict[str, float]] = []
    calls_per_turn: list[int] = []
    engines: dict[str, int] = {}
    for _ in range(rounds):
        for question in QUESTIONS:
            start = time.perf_counter()
            first_text: float | None = None
            response: ChatResponse | None = None
            async for event in chat.stream(corpus.tenant_id, ChatRequest(message=question)):
                if event.kind == "text" and first_text is None:
                    first_text = time.perf_counter()
                elif event.kind == "meta":
                    response = event.data
            end = time.perf_counter()
            assert response is not None and first_text is not None
            engines[response.engine.value] = engines.get(response.engine.value, 0) + 1
            calls = await asyncio.to_thread(stub.take_timings)
            rows.append(_turn(start, first_text, end, calls))
            calls_per_turn.append(len(calls))
    return {"turns": len(rows), "engines": engines,
            "model_calls_per_turn": round(sum(calls_per_turn) / len(rows), 2)} | {
        f"{key}_{stat}_ms": round(percentile([r[key] for r in rows], q) * 1000, 1)
        for key in ("ttft", "overhead_first_token", "stream_path", "overhead_total")
        for stat, q in (("p50", 50), ("p95", 95))}


def _turn(start: float, first_text: float, end: float,
          calls: list[CallTiming]) -> dict[str, float]:
    main = next((c for c in calls if c.main), None)
    if main is None or not main.first_token:  # no main call: the first text is ours alone
        waited = sum(c.finished - c.arrived for c in calls if c.finished <= first_text)
        stream_path = 0.0
    else:
        waited = sum(c.finished - c.arrived for c in calls if c.finished <= main.arrived)
        waited += main.first_token - main.arrived
        stream_path = first_text - main.first_token
    inside = sum(c.finished - c.arrived for c in calls)
    return {"ttft": first_text - start, "overhead_first_token": first_text - start - waited,
            "stream_path": stream_path, "overhead_total": end - start - inside}


def table_rows(f: dict[str, Any]) -> list[list[Any]]:
    return [[name, f[f"{key}_p50_ms"], f[f"{key}_p95_ms"]] for name, key in (
        ("time to first token", "ttft"),
        ("overhead before first token", "overhead_first_token"),
        ("  of which stream path", "stream_path"),
        ("overhead on the whole turn", "overhead_total"))]
