"""A local OpenAI-compatible chat server (plus a Tavily-compatible ``/search``) for tests and
``regintel bench llm-overhead``.

It speaks the documented wire protocol (``POST /v1/chat/completions``, SSE ``data:`` events,
streamed tool-call fragments, a final usage chunk) and answers like a well-behaved model
without being one (llm_stub_answers.py): structured steps are answered by the offline rules
read back from the prompt (so the LLM path is exercised with plausible outputs), summaries and
comparisons by sentences copied from the numbered evidence with their numbers, and the main
call copies the first sentence of the first evidence items with their markers, then calls
``capture_concepts``. A test may script any structured step's answer instead
(``StubBehaviour.answers``). It records every request body, so a test can inspect exactly what
left our process, and can be told to fail in each of the ways a provider fails.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal
from uuid import uuid4

from regintel.bench import llm_stub_answers

Failure = Literal["none", "error_500", "rate_limit", "malformed_tool", "cut", "slow",
                  "bad_json", "bad_payload"]


@dataclass
class CallTiming:
    """One request as the provider saw it (``time.perf_counter``: the system's monotonic
    clock on Linux, so a stub in another process stamps on the client's clock too)."""

    main: bool           # the turn's main call (tools offered, prose answer)
    arrived: float
    first_token: float = 0.0
    finished: float = 0.0


@dataclass
class StubBehaviour:
    first_token_delay_s: float = 0.0
    token_delay_s: float = 0.0
    failure: Failure = "none"
    failures_left: int = 0  # how many requests still fail (then "none" again)
    web_status: int = 200   # the Tavily-compatible /search route's answer (432: plan spent)
    # Scripted answers by structured step (the response format's name): the user message →
    # a payload sent as JSON, or a string sent as it is (malformed output).
    answers: dict[str, Callable[[str], Any]] = field(default_factory=dict)
    requests: list[dict[str, Any]] = field(default_factory=list)
    searches: list[dict[str, Any]] = field(default_factory=list)
    timings: list[CallTiming] = field(default_factory=list)


def _event(payload: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(payload)}\n\n".encode()


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"id": "stub", "object": "chat.completion.chunk", "model": "stub",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


class StubServer:
    """Runs in a thread of its own (its own event loop), like a provider would elsewhere."""

    def __init__(self, behaviour: StubBehaviour | None = None) -> None:
        self.behaviour = behaviour or StubBehaviour()
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.bind(("127.0.0.1", 0))
        self.port = self._sock.getsockname()[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._server: Any = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> StubServer:
        import uvicorn

        config = uvicorn.Config(self._app, log_level="warning", lifespan="off",
                                interface="asgi3")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run,
                                        kwargs={"sockets": [self._sock]}, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the stub model server did not start")
            time.sleep(0.01)
        return self

    def take_timings(self) -> list[CallTiming]:
        """The calls since the last take (and forget them)."""
        taken = list(self.behaviour.timings)
        self.behaviour.timings.clear()
        return taken

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)

    async def _app(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        b = self.behaviour
        if scope["path"] == "/_timings":  # the bench reads (GET) and clears (DELETE) them
            payload = [asdict(t) for t in b.timings]
            if scope["method"] == "DELETE":
                b.timings.clear()
            await self._plain(send, 200, {"timings": payload})
            return
        request = json.loads(body)
        if scope["path"].endswith("/search"):
            b.searches.append(request)
            await self._plain(send, b.web_status, llm_stub_answers.web_results(request["query"]) if
                              b.web_status == 200 else {"detail": {"error": "plan limit"}})
            return
        b.requests.append(request)
        timing = CallTiming(main=request.get("response_format") is None,
                            arrived=time.perf_counter())
        b.timings.append(timing)
        failure: Failure = "none"
        if b.failures_left > 0:
            b.failures_left -= 1
            failure = b.failure
        if failure == "error_500":
            await self._plain(send, 500, {"error": {"message": "stub outage",
                                                     "type": "server_error"}})
            return
        if failure == "rate_limit":
            await self._plain(send, 429, {"error": {"message": "Rate limit reached",
                                                     "type": "rate_limit_exceeded"}},
                              headers=[(b"retry-after", b"0")])
            return
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/event-stream")]})
        async for event in self._events(request, failure):
            await send({"type": "http.response.body", "body": event, "more_body": True})
            timing.first_token = timing.first_token or time.perf_counter()
        # Stamped before the closing frame goes out: the client may see the end of the body
        # (and stop its own clock) before this task runs again after the send.
        timing.finished = time.perf_counter()
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    @staticmethod
    async def _plain(send: Any, status: int, payload: dict[str, Any], *,
                     headers: list[tuple[bytes, bytes]] | None = None) -> None:
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), *(headers or [])]})
        await send({"type": "http.response.body", "body": json.dumps(payload).encode()})

    async def _events(self, request: dict[str, Any], failure: Failure) -> AsyncIterator[bytes]:
        b = self.behaviour
        user = request["messages"][-1]["content"]
        await asyncio.sleep(b.first_token_delay_s)
        if failure == "slow":
            await asyncio.sleep(3600)
        fmt = request.get("response_format")
        if fmt is not None:
            name = fmt["json_schema"]["name"]
            answer = b.answers[name](user) if name in b.answers else \
                llm_stub_answers.structured_answer(name, user)
            text = "{not json" if failure == "bad_json" else \
                answer if isinstance(answer, str) else json.dumps(answer)
            yield _event(_chunk({"role": "assistant", "content": text}))
        else:
            answer, concepts = llm_stub_answers.main_answer(user)
            words = answer.split(" ")
            for i, word in enumerate(words):
                yield _event(_chunk({"content": word if i == 0 else f" {word}"}))
                if b.token_delay_s:
                    await asyncio.sleep(b.token_delay_s)
                if failure == "cut" and i == len(words) // 2:
                    return  # the connection ends mid-answer, without [DONE]
            if request.get("tools"):
                arguments = json.dumps(concepts)
                if failure == "malformed_tool":
                    arguments = arguments[:-7]  # not JSON: the adapter reports an error
                elif failure == "bad_payload":
                    arguments = json.dumps({"concepts": "capture everything"})  # wrong shape
                call_id = f"call_{uuid4().hex[:8]}"
                yield _event(_chunk({"tool_calls": [{"index": 0, "id": call_id,
                                                     "type": "function", "function": {
                                                         "name": "capture_concepts",
                                                         "arguments": arguments[:20]}}]}))
                yield _event(_chunk({"tool_calls": [{"index": 0, "function": {
                    "arguments": arguments[20:]}}]}))
        yield _event(_chunk({}, "tool_calls" if request.get("tools") and fmt is None
                            else "stop"))
        prompt = sum(len(m.get("content") or "") for m in request["messages"]) // 4
        yield _event({"id": "stub", "object": "chat.completion.chunk", "choices": [],
                      "usage": {"prompt_tokens": prompt, "completion_tokens": 40,
                                "total_tokens": prompt + 40}})
        yield b"data: [DONE]\n\n"


class StubProcess:
    """The stub in a process of its own, as a provider is: its work never competes with the
    client for the interpreter lock. Timings come back over ``/_timings``."""

    def __init__(self, first_token_delay_s: float) -> None:
        self._delay = first_token_delay_s
        self._process: subprocess.Popen[str] | None = None
        self.base_url = ""

    def __enter__(self) -> StubProcess:
        self._process = subprocess.Popen(
            [sys.executable, "-m", "regintel.bench.llm_stub", "--first-token-ms",
             str(self._delay * 1000)], stdout=subprocess.PIPE, text=True)
        assert self._process.stdout is not None
        line = self._process.stdout.readline()  # "port N" once it listens
        if not line.startswith("port "):
            self._process.kill()
            raise RuntimeError("the stub model server did not start")
        self.base_url = f"http://127.0.0.1:{int(line.split()[1])}/v1"
        return self

    def __exit__(self, *exc: object) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.wait(timeout=10)
            if self._process.stdout is not None:
                self._process.stdout.close()

    def take_timings(self) -> list[CallTiming]:
        """The calls since the last take (and forget them)."""
        import httpx

        response = httpx.request("DELETE", f"{self.base_url.removesuffix('/v1')}/_timings")
        return [CallTiming(**t) for t in response.json()["timings"]]


def main() -> None:
    parser = argparse.ArgumentParser(description="The stub model server, in the foreground.")
    parser.add_argument("--first-token-ms", type=float, default=0.0)
    args = parser.parse_args()
    with StubServer(StubBehaviour(first_token_delay_s=args.first_token_ms / 1000)) as server:
        print(f"port {server.port}", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
