"""The OpenAI-compatible chat adapter against recorded wire transcripts of the documented
chat-completions protocol (``tests/data/llm_transcripts``), replayed through an in-process
transport: no network, no model."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import aclosing
from pathlib import Path
from typing import Any, cast

import httpx
import pytest
from pydantic import ValidationError

from regintel.adapters.llm.openai_compatible import OpenAICompatibleChatModel
from regintel.ports.llm import (
    ChatMessage,
    ChatModel,
    DoneChunk,
    ErrorChunk,
    JsonSchemaFormat,
    LlmStreamChunk,
    TextChunk,
    ToolCall,
    ToolChunk,
    ToolSpec,
    Usage,
    request_sent,
)

TRANSCRIPTS = Path(__file__).parents[2] / "data" / "llm_transcripts"
BASE_URL = "http://llm.test/v1"
QUESTION = [ChatMessage(role="user", content="What is the VAT rate in Ireland?")]
CAPTURE_CONCEPTS = ToolSpec(
    name="capture_concepts",
    description="Capture SKOS-like regulatory concepts mentioned in this turn.",
    parameters={"type": "object", "required": ["concepts"], "properties": {"concepts": {
        "type": "array", "items": {"type": "object", "properties": {
            "domain": {"type": "string"}, "kind": {"type": "string"},
            "jurisdiction": {"type": "string"}, "prefLabel": {"type": "string"}},
            "required": ["domain", "kind", "jurisdiction", "prefLabel"]}}}},
)


# -- replay machinery ------------------------------------------------------------------------
class _Body(httpx.AsyncByteStream):
    """A body served in ``size``-byte pieces (even inside a UTF-8 character), maybe stalling
    forever at the end; records whether it was closed."""

    def __init__(self, data: bytes, *, size: int = 4096, stall: bool = False) -> None:
        self.data, self.size, self.stall, self.closed, self.sent = data, size, stall, False, 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for start in range(0, len(self.data), self.size):
            self.sent += 1
            yield self.data[start:start + self.size]
        if self.stall:
            await asyncio.Event().wait()

    async def aclose(self) -> None:
        self.closed = True


Reply = Callable[[], httpx.Response]


class Sse:
    """Replays a transcript; with ``stall_after``, only its first events, then silence."""

    def __init__(self, name: str, *, size: int = 4096, stall_after: int | None = None) -> None:
        self.data = (TRANSCRIPTS / name).read_bytes()
        if stall_after is not None:
            self.data = b"".join(e + b"\n\n" for e in self.data.split(b"\n\n")[:stall_after])
        self.size, self.stall = size, stall_after is not None
        self.bodies: list[_Body] = []

    def __call__(self) -> httpx.Response:
        self.bodies.append(_Body(self.data, size=self.size, stall=self.stall))
        return httpx.Response(200, headers={"content-type": "text/event-stream; charset=utf-8"},
                              stream=self.bodies[-1])


def raw_sse(text: str) -> Reply:
    return lambda: httpx.Response(200, headers={"content-type": "text/event-stream"},
                                  stream=_Body(text.encode()))


def error(status: int, name: str, headers: dict[str, str] | None = None) -> Reply:
    body = (TRANSCRIPTS / name).read_bytes()
    return lambda: httpx.Response(status, headers=headers, content=body)


class Server:
    """Serves the replies in order (the last one repeats); records requests and sleeps."""

    def __init__(self, *replies: Reply) -> None:
        self.replies = list(replies)
        self.requests: list[httpx.Request] = []
        self.sleeps: list[float] = []

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.replies[min(len(self.requests), len(self.replies)) - 1]()

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)

    def model(self, **options: Any) -> OpenAICompatibleChatModel:
        options.setdefault("api_key", "sk-test-123")
        return OpenAICompatibleChatModel(base_url=BASE_URL, model="gpt-4o-mini",
                                         transport=httpx.MockTransport(self.handle),
                                         sleep=self.sleep, **options)

    def body(self, number: int = 0) -> dict[str, Any]:
        return cast(dict[str, Any], json.loads(self.requests[number].content))


async def collect(chat_model: ChatModel, messages: Sequence[ChatMessage] = QUESTION, /,
                  **kwargs: Any) -> list[LlmStreamChunk]:
    async with aclosing(chat_model.stream(messages, **kwargs)) as chunks:
        return [chunk async for chunk in chunks]


def texts(chunks: list[LlmStreamChunk]) -> list[str]:
    return [c.text for c in chunks if isinstance(c, TextChunk)]


def tools(chunks: list[LlmStreamChunk]) -> list[ToolChunk]:
    return [c for c in chunks if isinstance(c, ToolChunk)]


# -- (a) (e) text and usage ------------------------------------------------------------------
async def test_text_deltas_arrive_in_order_and_usage_ends_the_stream() -> None:
    chunks = await collect(Server(Sse("text_deltas.sse")).model(), tools=[CAPTURE_CONCEPTS])
    assert texts(chunks) == [
        "Under", " Article", " 5", "(1", ")(", "f", ") GDPR", ",", " personal", " data", " must",
        " be", " kept", " secure", " —", " the", " fine", " can", " reach", " €", "20",
        " million", "."]
    assert chunks[23:] == [DoneChunk(finish_reason="stop",
                                     usage=Usage(input_tokens=412, output_tokens=27))]


async def test_bytes_split_anywhere_reassemble_to_the_same_stream() -> None:
    pieces = Sse("text_deltas.sse", size=7)
    expected = await collect(Server(Sse("text_deltas.sse")).model())
    assert await collect(Server(pieces).model()) == expected
    assert pieces.bodies[0].sent > 1000  # really split, including inside "—" and "€"


# -- (b) (c) (d) tool calls ------------------------------------------------------------------
async def test_one_tool_call_from_many_fragments_is_emitted_once_parsed() -> None:
    chunks = await collect(Server(Sse("tool_call_fragments.sse")).model(), tools=[CAPTURE_CONCEPTS])
    assert chunks == [
        ToolChunk(id="call_x7Kp2RmQ9vLc4TnB8wYd1FsJ", name="capture_concepts", arguments={
            "concepts": [{"domain": "TAX", "kind": "VAT", "jurisdiction": "IE",
                          "prefLabel": "Value-Added Tax", "altLabels": ["sales tax in Ireland"],
                          "definition": "A consumption tax charged at 23% on most supplies."}]}),
        DoneChunk(finish_reason="tool_calls", usage=Usage(input_tokens=538, output_tokens=61)),
    ]


async def test_parallel_tool_calls_interleaved_by_index_are_kept_apart() -> None:
    chunks = await collect(Server(Sse("parallel_tool_calls.sse")).model(), tools=[CAPTURE_CONCEPTS])
    assert [(c.id, c.name, c.arguments) for c in tools(chunks)] == [
        ("call_Qm3vT8bXk2LpR9sWc6NdY4Ha", "search_regulations",
         {"query": "VAT registration threshold", "jurisdiction": "IE"}),
        ("call_Zr5nJ1gUe7HqB3tKx0MfV8Pw", "capture_concepts",
         {"concepts": [{"domain": "TAX", "kind": "VAT", "jurisdiction": "IE",
                        "prefLabel": "VAT registration"}]}),
    ]
    assert texts(chunks) == [] and isinstance(chunks[-1], DoneChunk)


async def test_text_and_tool_call_in_one_response_stay_in_their_own_chunks() -> None:
    chunks = await collect(Server(Sse("text_and_tool_call.sse")).model(), tools=[CAPTURE_CONCEPTS])
    assert "".join(texts(chunks)) == ("Vehicle Registration Tax (VRT) is due when you register "
                                      "an imported car in Ireland.")  # no tool JSON in text
    [call] = tools(chunks)
    assert call.arguments["concepts"][0]["altLabels"] == ["VRT", "car import tax"]
    assert [c.type for c in chunks] == ["text"] * 17 + ["tool", "done"]


async def test_tool_calls_are_emitted_as_soon_as_the_choice_finishes() -> None:
    """Not held back for the usage chunk and [DONE]: the server stalls after the finish."""
    events = (TRANSCRIPTS / "tool_call_fragments.sse").read_bytes().split(b"\n\n")
    finish = next(i for i, e in enumerate(events) if b'"finish_reason":"tool_calls"' in e)
    reply = Sse("tool_call_fragments.sse", stall_after=finish + 1)
    async with aclosing(Server(reply).model().stream(QUESTION)) as chunks:
        first = await asyncio.wait_for(anext(chunks), timeout=5)
    assert isinstance(first, ToolChunk) and first.name == "capture_concepts"
    assert reply.bodies[0].closed


# -- (f) (i) (j) final errors ---------------------------------------------------------------
def _said(name: str) -> str:  # the server's own message in an error transcript
    return cast(str, json.loads((TRANSCRIPTS / name).read_bytes())["error"]["message"])


@pytest.mark.parametrize(("reply", "expected", "requests", "waits"), [
    (error(400, "error_400_invalid_request.json"),
     ErrorChunk(message=_said("error_400_invalid_request.json"), retryable=False, status=400),
     1, []),
    (error(429, "error_429_insufficient_quota.json"),  # waiting does not refill the account
     ErrorChunk(message=_said("error_429_insufficient_quota.json"), retryable=False, status=429),
     1, []),
    (error(429, "error_429_rate_limit.json", {"Retry-After": "120"}),  # too long for a turn
     ErrorChunk(message=_said("error_429_rate_limit.json"), retryable=True, status=429), 1, []),
    (error(500, "error_500_server.json"),  # three times: backoff, then give up
     ErrorChunk(message=_said("error_500_server.json"), retryable=True, status=500),
     3, [0.5, 1.0]),
    (Sse("malformed_tool_arguments.sse"),  # never passed on as text
     ErrorChunk(message="the model sent malformed JSON arguments for tool 'capture_concepts'",
                retryable=False), 1, []),
], ids=["400", "quota", "retry-after-too-long", "500-thrice", "malformed-tool-json"])
async def test_failures_end_the_stream_with_one_error_chunk(
        reply: Reply, expected: ErrorChunk, requests: int, waits: list[float]) -> None:
    server = Server(reply)
    assert await collect(server.model(max_retries=2), tools=[CAPTURE_CONCEPTS]) == [expected]
    assert len(server.requests) == requests and server.sleeps == waits


# -- (g) cut streams -------------------------------------------------------------------------
async def test_stream_cut_mid_tool_call_ends_with_an_error_and_no_tool() -> None:
    server = Server(Sse("cut_mid_tool_call.sse"))
    chunks = await collect(server.model(), tools=[CAPTURE_CONCEPTS])
    assert "".join(texts(chunks)) == "The standard VAT rate is 23%." and tools(chunks) == []
    assert isinstance(chunks[-1], ErrorChunk) and chunks[-1].retryable
    assert "ended before the response was complete" in chunks[-1].message
    assert len(server.requests) == 1  # text was already out: never sent twice


# -- (h) retries ----------------------------------------------------------------------------
def _refused() -> httpx.Response:
    raise httpx.ConnectError("connection refused")


_CUT_EARLY = raw_sse(  # nothing yielded yet (a tool call is held until it finishes): safe to retry
    'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":'
    '{"name":"t","arguments":"{\\"a"}}]},"finish_reason":null}]}\n\n')
_LIMITED = "error_429_rate_limit.json"


@pytest.mark.parametrize(("first", "waits"), [
    (error(429, _LIMITED, {"Retry-After": "2"}), [2]),
    (error(429, _LIMITED, {"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}), [0.0]),  # past
    (error(429, _LIMITED, {"retry-after-ms": "1500"}), [1.5]),
    (error(503, "error_500_server.json"), [0.5]),  # no hint: exponential backoff
    (_refused, [0.5]),
    (_CUT_EARLY, [0.5]),
], ids=["retry-after-seconds", "retry-after-date", "retry-after-ms", "503", "refused", "cut"])
async def test_a_transient_failure_is_retried_then_the_answer_streams(
        first: Reply, waits: list[float]) -> None:
    server = Server(first, Sse("text_deltas.sse"))
    chunks = await collect(server.model())
    assert server.sleeps == waits and len(server.requests) == 2
    assert "".join(texts(chunks)).startswith("Under Article 5(1)(f) GDPR")
    assert tools(chunks) == [] and isinstance(chunks[-1], DoneChunk)


# -- (k) the request we send -----------------------------------------------------------------
async def test_request_body_and_headers_follow_the_documented_shape() -> None:
    server = Server(Sse("text_deltas.sse"))
    call = ToolCall(id="call_1", name="capture_concepts", arguments={"concepts": []})
    history = [ChatMessage(role="system", content="You are a compliance copilot."),
               ChatMessage(role="user", content="VAT in Ireland?"),
               ChatMessage(role="assistant", tool_calls=(call,)),
               ChatMessage(role="tool", tool_call_id="call_1", content="ok")]
    await collect(server.model(), history, tools=[CAPTURE_CONCEPTS], temperature=0.2)
    request = server.requests[0]
    assert request.method == "POST" and str(request.url) == f"{BASE_URL}/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-test-123"
    assert request.headers["accept"] == "text/event-stream"
    assert server.body() == {
        "model": "gpt-4o-mini",
        "messages": [
            {"role": "system", "content": "You are a compliance copilot."},
            {"role": "user", "content": "VAT in Ireland?"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "capture_concepts", "arguments": '{"concepts": []}'}}]},
            {"role": "tool", "content": "ok", "tool_call_id": "call_1"},
        ],
        "stream": True, "stream_options": {"include_usage": True}, "temperature": 0.2,
        "tools": [{"type": "function", "function": {
            "name": "capture_concepts", "description": CAPTURE_CONCEPTS.description,
            "parameters": CAPTURE_CONCEPTS.parameters}}],
    }


async def test_options_shape_the_request() -> None:
    schema = JsonSchemaFormat(name="reference_resolution", json_schema={
        "type": "object", "properties": {"ids": {"type": "array"}}, "required": ["ids"]})
    server = Server(Sse("text_deltas.sse"))
    await collect(server.model(), response_format=schema)
    await collect(server.model(api_key=None, supports_json_schema=False, supports_tools=False),
                  response_format=schema, tools=[CAPTURE_CONCEPTS], model="llama3.1:8b",
                  temperature=None)
    assert server.body(0)["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "reference_resolution", "schema": schema.json_schema,
                        "strict": True}}
    assert server.body(1)["response_format"] == {"type": "json_object"}
    assert "tools" not in server.body(1)  # no tool support: answer-only
    assert "authorization" not in server.requests[1].headers
    assert server.body(1)["model"] == "llama3.1:8b" and "temperature" not in server.body(1)


async def test_without_streaming_a_whole_completion_is_mapped_to_the_same_chunks() -> None:
    body = (TRANSCRIPTS / "completion_with_tool_call.json").read_bytes()
    server = Server(lambda: httpx.Response(200, headers={"content-type": "application/json"},
                                           content=body))
    chunks = await collect(server.model(supports_streaming=False), tools=[CAPTURE_CONCEPTS])
    assert server.body()["stream"] is False and "stream_options" not in server.body()
    assert server.requests[0].headers["accept"] == "*/*"  # httpx's default, not SSE
    assert chunks == [
        TextChunk(text="VAT is charged at 23% on most supplies in Ireland."),
        ToolChunk(id="call_Nc2kR7vXq4LtF9bMw1SyD6Ge", name="capture_concepts", arguments={
            "concepts": [{"domain": "TAX", "kind": "VAT", "jurisdiction": "IE",
                          "prefLabel": "Value-Added Tax"}]}),
        DoneChunk(finish_reason="tool_calls", usage=Usage(input_tokens=455, output_tokens=52)),
    ]


# -- server quirks and in-stream errors ------------------------------------------------------
async def test_quirks_of_compatible_servers() -> None:
    """CRLF, keep-alives, ``data:`` without a space, calls without ``index`` (told apart by id;
    one with parsed arguments), usage under ``x_groq``, no [DONE]."""
    delta = '{"choices":[{"index":0,"delta":%s,"finish_reason":%s}]%s}'
    events = [": keep-alive", "data:" + delta % ('{"content":"Hi"}', "null", ""), "",
              "data: " + delta % ('{"tool_calls":[{"id":"a","function":{"name":"one",'
                                  '"arguments":"{\\"x\\":"}}]}', "null", ""), "",
              "data: " + delta % ('{"tool_calls":[{"id":"b","function":{"name":"two",'
                                  '"arguments":{"y":2}}}]}', "null", ""), "",
              "data: " + delta % ('{"tool_calls":[{"id":"a","function":{"arguments":"1}"}}]}',
                                  "null", ""), "",
              "data: " + delta % ("{}", '"stop"', ',"x_groq":{"usage":{"prompt_tokens":9,'
                                  '"completion_tokens":4}}'), "", ""]
    chunks = await collect(Server(raw_sse("\r\n".join(events))).model())
    assert chunks == [
        TextChunk(text="Hi"),
        ToolChunk(id="a", name="one", arguments={"x": 1}),
        ToolChunk(id="b", name="two", arguments={"y": 2}),
        DoneChunk(finish_reason="stop", usage=Usage(input_tokens=9, output_tokens=4)),
    ]


async def test_an_error_event_inside_the_stream_ends_it() -> None:
    stream = raw_sse('data: {"choices":[{"index":0,"delta":{"content":"Part"}}]}\n\n'
                     'data: {"error":{"message":"context length exceeded","code":400}}\n\n')
    chunks = await collect(Server(stream).model())
    assert chunks == [TextChunk(text="Part"),
                      ErrorChunk(message="context length exceeded", retryable=False, status=400)]


# -- (l) cancellation ------------------------------------------------------------------------
async def test_closing_the_stream_early_closes_the_response() -> None:
    reply = Sse("text_deltas.sse", size=64)
    async with aclosing(Server(reply).model().stream(QUESTION)) as chunks:
        async for chunk in chunks:
            assert chunk == TextChunk(text="Under")
            break
    body = reply.bodies[0]
    assert body.closed and body.sent < len(body.data) // 64  # closed, and stopped reading


async def test_cancelling_the_consumer_task_closes_the_response() -> None:
    reply = Sse("text_deltas.sse", stall_after=4)  # role + 3 deltas, then silence
    stream = Server(reply).model().stream(QUESTION)
    seen: list[LlmStreamChunk] = []
    got_text = asyncio.Event()

    async def consume() -> None:
        async for chunk in stream:
            seen.append(chunk)
            got_text.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(got_text.wait(), timeout=5)
    await asyncio.sleep(0.05)  # let it drain the body and block on the stalled connection
    assert not reply.bodies[0].closed
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert reply.bodies[0].closed
    assert texts(seen) == ["Under", " Article", " 5"]


# -- the port's message rules ----------------------------------------------------------------
@pytest.mark.parametrize("fields", [
    {"role": "tool", "content": "x"},                                   # no tool_call_id
    {"role": "user", "content": "x", "tool_call_id": "c"},              # id off a tool message
    {"role": "user", "content": "x", "tool_calls": [{"id": "c", "name": "t"}]},
    {"role": "assistant"},                                              # nothing at all
])
def test_inconsistent_messages_are_refused(fields: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        ChatMessage.model_validate(fields)


async def test_a_caller_waiting_for_the_request_to_leave_is_told_once_the_provider_answers(
        ) -> None:
    sent = asyncio.Event()

    async def call() -> list[LlmStreamChunk]:
        request_sent.set(sent)  # this task's context only
        return await collect(Server(Sse("text_deltas.sse")).model())

    assert not sent.is_set()
    chunks = await asyncio.create_task(call())
    assert sent.is_set() and texts(chunks)[0] == "Under"
    assert request_sent.get() is None  # the caller's own context is untouched
