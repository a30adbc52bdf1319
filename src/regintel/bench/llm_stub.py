"""A local OpenAI-compatible chat server (plus a Tavily-compatible ``/search``) for tests and
``regintel bench llm-overhead``.

It speaks the documented wire protocol (``POST /v1/chat/completions``, SSE ``data:`` events,
streamed tool-call fragments, a final usage chunk) and answers like a well-behaved model
without being one: structured steps are answered by the offline rules read back from the
prompt (so the LLM path is exercised with plausible outputs), summaries and comparisons by
sentences copied from the numbered evidence with their numbers, and the main call copies the
first sentence of the first evidence items with their markers, then calls
``capture_concepts``. A test may script any structured step's answer instead
(``StubBehaviour.answers``). It records every request body, so a test can inspect exactly what left
our process, and can be told to fail in each of the ways a provider fails.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal
from uuid import UUID, uuid4

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


_EVIDENCE = re.compile(r"^\[(\d+)\] [^\n]*\n(.*?)(?=\n\n\[\d+\] |\Z)", re.S | re.M)
_SENTENCE = re.compile(r"(.+?[.;:])(?:\s|$)", re.S)
_WORDS = re.compile(r"[a-z]{4,}")
_TOPIC = re.compile(r"\b(?:[A-Z][a-z]+(?: [A-Z][a-z]+)+|[A-Z]{2,6})\b")
_DOCUMENT = re.compile(r"^### Document ([0-9a-f-]{36}): (.*)$", re.M)
_DUTY = re.compile(r"\b(?:must|shall|required)\b", re.I)
_FIGURE = re.compile(r"\d+")


def _field(text: str, name: str) -> str:
    m = re.search(rf"^{re.escape(name)}: ?(.*)$", text, re.M)
    return m.group(1).strip() if m else ""


def _main_answer(user: str) -> tuple[str, dict[str, Any]]:
    """The two evidence sentences sharing most words with the question, each with the marker
    of its evidence item, in evidence order."""
    question = _field(user, "Question")
    wanted = set(_WORDS.findall(question.lower()))
    scored = []
    for n, text in _EVIDENCE.findall(user):
        for m in _SENTENCE.finditer(" ".join(text.split())):
            sentence = m.group(1)
            overlap = len(wanted & set(_WORDS.findall(sentence.lower())))
            scored.append((-overlap, int(n), sentence))
    best = sorted(sorted(scored)[:2], key=lambda x: x[1])
    parts = [f"{sentence.rstrip('.;:')} [{n}]." for _, n, sentence in best]
    topics = _TOPIC.findall(question) or ["Customer Due Diligence"]
    concept = {"domain": "AML", "kind": topics[0].upper().replace(" ", "_"),
               "jurisdiction": "AE-ADGM", "prefLabel": topics[0],
               "definition": f"{topics[0]} as used in the regulations."}
    return " ".join(parts) or "The retrieved provisions do not address this question.", \
        {"concepts": [concept]}


def structured_answer(name: str, user: str) -> dict[str, Any]:
    """The stub's own answer to the structured step ``name`` (the response format's name)."""
    from regintel.chat.offline import intent, references
    from regintel.domain.chat import Action

    if name == "classify_intent":
        guess = intent.classify(_field(user, "Message"))
        return {"action": guess.action.value, "confidence": 0.9 if guess.confident else 0.4,
                "reason": guess.reason}
    if name == "resolve_references":
        out = references.resolve(_field(user, "Message"),
                                 Action(_field(user, "Intended action")),
                                 _explicit(_field(user, "Explicit documents provided")),
                                 _registry(user))
        level = out.inference_confidence
        return {"has_implicit_refs": out.has_implicit_refs,
                "inferred_doc_ids": out.candidates or out.inferred_doc_ids,
                "inference_confidence": "low" if level == "none" else level,
                "reasoning": out.reasoning, "unmatched_name": out.unmatched,
                "unmatched_kind": out.unmatched_kind}
    if name == "summarize_thread":  # the running summary, with the new questions appended
        previous = user.split("Summary so far:\n", 1)[-1].split("\n\nNew messages:", 1)[0]
        lines = [] if previous.strip() == "(none)" else previous.strip().splitlines()
        lines += [f"- Asked: {q[:120]}" for q in re.findall(r"^user: (.*)$", user, re.M)]
        return {"summary": "\n".join(lines[-12:])}
    if name == "rewrite_tone":
        return {"appropriate": True, "rewritten": None, "adjustments": []}
    if name == "compose_summary":
        return _summary(user)
    if name == "compose_comparison":
        return _comparison(user)
    if name == "extract_themes":
        return _themes(user)
    if name == "audit_findings":
        return _findings(user)
    raise ValueError(f"the stub does not know the structured step {name!r}")


Numbered = list[tuple[int, str]]  # (evidence number, one sentence of that evidence)


def _documents(user: str) -> list[tuple[str, Numbered]]:
    """Each document block of numbered evidence: its id and its sentences, in order."""
    heads = list(_DOCUMENT.finditer(user))
    out = []
    for i, head in enumerate(heads):
        block = user[head.end():heads[i + 1].start() if i + 1 < len(heads) else len(user)]
        sentences = [(int(n), m.group(1)) for n, text in _EVIDENCE.findall(block.strip())
                     for m in _SENTENCE.finditer(" ".join(text.split()))
                     if len(m.group(1).split()) >= 6 and len(m.group(1)) <= 400]
        out.append((head.group(1), sentences))
    return out


def _stated(item: tuple[int, str]) -> dict[str, Any]:
    return {"text": item[1], "evidence": [item[0]]}


def _summary(user: str) -> dict[str, Any]:
    """Per document: its first sentence that is not a heading or a list item as the
    overview, its first duties (then other sentences) as the key obligations."""
    sections = []
    for doc_id, sentences in _documents(user):
        overview = next((s for s in sentences if s[1][0].isupper() and "•" not in s[1]),
                        sentences[0])
        rest = [s for s in sentences if s != overview]
        duties = [s for s in rest if _DUTY.search(s[1])]
        key = (duties + [s for s in rest if s not in duties])[:5]
        sections.append({"document_id": doc_id, "overview": _stated(overview),
                         "key_obligations": [_stated(s) for s in key]})
    return {"documents": sections}


def _comparison(user: str) -> dict[str, Any]:
    """Focused: each document's sentence sharing most words with the topic (figures first on a
    tie) as its cell. Holistic: each document's first duties as differences and what it
    alone covers."""
    documents = _documents(user)
    topic = _field(user, "Topic")
    if topic:
        wanted = set(_WORDS.findall(topic.lower()))
        chosen = [max(sentences, key=lambda s: (len(wanted & set(_WORDS.findall(s[1].lower()))),
                                                bool(_FIGURE.search(s[1]))))
                  for _, sentences in documents]
        differs = len({tuple(_FIGURE.findall(s)) for _, s in chosen}) > 1
        row = {"aspect": topic, "differs": differs, "cells": [
            {"document_id": doc_id, "addressed": True, "text": s, "evidence": [n]}
            for (doc_id, _), (n, s) in zip(documents, chosen, strict=True)]}
        return {"rows": [row], "differences": [_stated(s) for s in chosen] if differs else [],
                "similarities": [] if differs else [_stated(chosen[0])]}
    duties = [[s for s in sentences if _DUTY.search(s[1])] or sentences
              for _, sentences in documents]
    return {"overview": _stated(documents[0][1][0]),
            "differences": [_stated(d[0]) for d in duties],
            "similarities": [],
            "unique": [{"document_id": doc_id, "points": [_stated(s) for s in d[1:3]]}
                       for (doc_id, _), d in zip(documents, duties, strict=True)],
            "implications": [_stated(duties[0][-1])]}


_PASSAGE = re.compile(r"^\[([ST]\d+)\] [^\n]*\n(.*?)(?=\n\n\[[ST]\d+\] |\n\n### |\n\nTARGET|\Z)",
                      re.S | re.M)
_AML_THEMES = ("customer due diligence", "record keeping", "suspicious activity",
               "money laundering reporting officer", "sanctions", "training", "risk assessment")


def _themes(user: str) -> dict[str, Any]:
    """The themes of a small AML vocabulary the sample mentions (else its first words)."""
    text = " ".join(user.lower().split())
    found = [t for t in _AML_THEMES if t in text]
    return {"themes": found[:4] or [" ".join(_WORDS.findall(text)[:3]) or "general"]}


def _findings(user: str) -> dict[str, Any]:
    """A gap for each of the first target passages that states a duty, against the first
    source passage: crude, but every id is one that was shown."""
    passages = {ident: " ".join(text.split()) for ident, text in _PASSAGE.findall(user)}
    sources = [i for i in passages if i.startswith("S")]
    findings: list[dict[str, Any]] = []
    for ident, text in passages.items():
        duty = next((m.group(1) for m in _SENTENCE.finditer(text) if _DUTY.search(m.group(1))),
                    None)
        if ident.startswith("T") and duty:
            findings.append({"kind": "gap", "severity": "High" if not findings else "Medium",
                             "target_evidence": ident,
                             "source_evidence": sources[0] if sources else None,
                             "requirement": duty[:400],
                             "consequence": "The policy does not show how it meets this rule.",
                             "suggestion": "State how the policy meets this requirement.",
                             "confidence_score": 0.7})
    return {"findings": findings[:3]}


def _explicit(line: str) -> list[Any]:
    from regintel.domain.documents import DocStatus, DocType, Document

    docs = []
    for ident, title, kind in re.findall(r"([0-9a-f-]{36}) \(([^;]*); (\w+)\)", line):
        docs.append(Document(id=UUID(ident), title=title, version="", doc_type=DocType(kind),
                             status=DocStatus.READY, original_filename="x", mime_type="x",
                             size_bytes=0, created_at=datetime.now(UTC), content_hash="x",
                             file_path="x"))
    return docs


def _registry(user: str) -> list[Any]:
    rows = re.findall(r"^([0-9a-f-]{36}) \| (.*?) \| (\w+) \| (\d+)$", user, re.M)
    return [{"id": i, "title": t, "version": "", "doc_type": k, "turn": int(n)}
            for i, t, k, n in rows]


def _web_results(query: str) -> dict[str, Any]:
    """Tavily's response shape: ``results`` with title, url, content and score."""
    return {"query": query, "results": [
        {"title": "FSRA consults on AML rule changes", "url": "https://www.adgm.com/news/aml-2026",
         "content": "The FSRA published amendments to its AML Rules in 2026. Firms must "
                    "update their policies within six months.", "score": 0.91},
        {"title": "Sanctions update", "url": "https://www.adgm.com/news/sanctions",
         "content": "New targeted financial sanctions guidance applies from March 2026.",
         "score": 0.72}]}


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
            await self._plain(send, b.web_status, _web_results(request["query"]) if
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
                structured_answer(name, user)
            text = "{not json" if failure == "bad_json" else \
                answer if isinstance(answer, str) else json.dumps(answer)
            yield _event(_chunk({"role": "assistant", "content": text}))
        else:
            answer, concepts = _main_answer(user)
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
