"""What our pipeline adds to a model's latency, on the LLM engine.

A local OpenAI-compatible stub answers every call after a fixed first-token delay; the chat
pipeline runs the 20 inquire questions of ``bench chat`` over the demo corpus through the real
adapter. For each turn we know, from the stub's own clock (same process, same
``perf_counter``), when each model call arrived, when its first token left and when it ended,
and from the client side when the first ``text`` event and the final ``meta`` event came.
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

import time
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from regintel.bench.adgm_corpus import ingest
from regintel.bench.chat import QUESTIONS
from regintel.bench.llm_stub import CallTiming, StubBehaviour, StubServer
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
              first_token_ms: float = 300.0, external: bool = True,
              rounds: int = 1) -> dict[str, Any]:
    """``opener`` opens (and migrates) a container for the given settings."""
    behaviour = StubBehaviour(first_token_delay_s=first_token_ms / 1000)
    with StubServer(behaviour) as stub:
        configured = settings.model_copy(
            update={"llm": llm_settings(stub.base_url, external=external)})
        async with opener(configured) as container:
            return await _measure(container, rulebooks, behaviour, rounds) | {
                "first_token_delay_ms": first_token_ms, "external_provider": external,
                "targets": {"overhead_first_token_p95_ms": 50.0}}


async def _measure(container: Container, rulebooks: Path, behaviour: StubBehaviour,
                   rounds: int) -> dict[str, Any]:
    policy_file = resources.files("regintel.demo") / "data" / "falcon_crest_aml_policy.pdf"
    with resources.as_file(policy_file) as path:
        corpus = await ingest(container, TENANT, rulebooks, path, "Falcon Crest AML Policy")
    chat = await container.chat()
    await chat.ask(corpus.tenant_id, ChatRequest(message=QUESTIONS[0]))  # loads the models
    rows: list[dict[str, float]] = []
    calls_per_turn: list[int] = []
    engines: dict[str, int] = {}
    for _ in range(rounds):
        for question in QUESTIONS:
            behaviour.timings.clear()
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
            rows.append(_turn(start, first_text, end, list(behaviour.timings)))
            calls_per_turn.append(len(behaviour.timings))
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
