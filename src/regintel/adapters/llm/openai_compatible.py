"""Chat completions from any OpenAI-compatible ``/chat/completions`` endpoint (OpenAI,
Azure-compatible gateways, Groq, vLLM, Ollama, llama.cpp server, LM Studio), streamed over SSE
and mapped onto the ``LlmStreamChunk`` union of ``regintel.ports.llm``.

Why httpx rather than the ``openai`` SDK: httpx is one small dependency we already ship (the
embeddings adapter uses it), while the SDK brings its own pins and a weekly release cadence for
one POST and one event format. Owning the wire gives us full control of:

- SSE parsing, tolerant of what "compatible" servers send: keep-alive comments, ``data:``
  without a space, CRLF, usage on the last choice chunk or under ``x_groq``, ``{"error": …}``
  events inside the stream, tool-call fragments without ``index``, a plain JSON body;
- retries: 408, 429, 5xx, timeouts, connection failures and cut streams are retried with
  exponential backoff, honouring ``Retry-After`` / ``retry-after-ms`` (a longer wait than
  ``max_retry_after_s`` is not worth a chat turn: we give up) — only while nothing has been
  yielded, so a consumer never sees text twice. Other 4xx are final;
- cancellation: the response is closed as soon as the consumer closes the stream or its task is
  cancelled, which stops the provider generating (and billing) tokens nobody reads.

Tool calls are assembled from fragments by ``index`` (``id`` and ``name`` in the first one,
``arguments`` as string pieces) and emitted once each, parsed, when the choice finishes. The
calls of one response are all-or-nothing: a malformed one yields a single ``ErrorChunk``.
Reasoning deltas (``reasoning_content``) are dropped: neither answer text nor tool JSON.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from regintel.ports.llm import (
    ChatMessage,
    DoneChunk,
    ErrorChunk,
    JsonSchemaFormat,
    LlmStreamChunk,
    TextChunk,
    ToolChunk,
    ToolSpec,
    Usage,
    request_sent,
)

log = logging.getLogger(__name__)

_RETRYABLE_4XX = frozenset({408, 429})
# A 429 that waiting does not cure: the account is out of credit.
_FINAL_ERROR_CODES = frozenset({"insufficient_quota"})


@dataclass(eq=False)
class _Retryable(Exception):
    """A failure another attempt may cure. Raised inside one attempt; the retry loop decides."""

    message: str
    status: int | None = None
    retry_after: float | None = None


class OpenAICompatibleChatModel:
    """A ``ChatModel`` over one endpoint. ``base_url`` includes the version prefix
    (``https://api.openai.com/v1``, ``http://localhost:11434/v1``). Capability flags describe the
    model behind it; the defaults are OpenAI's. Pass ``client`` to share a connection pool (it is
    then the caller's to close) or ``transport`` to replay recorded traffic in tests."""

    def __init__(self, *, base_url: str, model: str, api_key: str | None = None,
                 timeout_s: float = 60.0, supports_tools: bool = True,
                 supports_json_schema: bool = True, supports_streaming: bool = True,
                 schema_dialect: str = "openai", max_tokens: int | None = None,
                 max_retries: int = 2, backoff_s: float = 0.5, max_backoff_s: float = 8.0,
                 max_retry_after_s: float = 30.0, extra_headers: Mapping[str, str] | None = None,
                 client: httpx.AsyncClient | None = None,
                 transport: httpx.AsyncBaseTransport | None = None,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must be an http(s) URL, got {base_url!r}")
        if max_retries < 0:
            raise ValueError("max_retries cannot be negative")
        self._url = base_url.rstrip("/") + "/chat/completions"
        # Plain attributes satisfy the port's read-only properties.
        self.model_name = model
        self.supports_tools = supports_tools
        self.supports_json_schema = supports_json_schema
        self.supports_streaming = supports_streaming
        if schema_dialect not in {"openai", "llama_cpp"}:
            raise ValueError(f"unknown schema dialect {schema_dialect!r}")
        self._schema_dialect = schema_dialect
        self._max_tokens = max_tokens
        self._max_retries = max_retries
        self._backoff_s = backoff_s
        self._max_backoff_s = max_backoff_s
        self._max_retry_after_s = max_retry_after_s
        self._sleep = sleep
        self._timeout = httpx.Timeout(timeout_s)
        self._headers = dict(extra_headers or {})
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        if supports_streaming:
            self._headers["Accept"] = "text/event-stream"
        self._owns_client = client is None
        self._client = client or httpx.AsyncClient(timeout=self._timeout, transport=transport)

    async def aclose(self) -> None:
        """Close the connection pool, unless the caller lent us theirs."""
        if self._owns_client:
            await self._client.aclose()

    async def stream(self, messages: Sequence[ChatMessage], *,
                     tools: Sequence[ToolSpec] | None = None,
                     response_format: JsonSchemaFormat | None = None, model: str | None = None,
                     temperature: float | None = 0.0,
                     timeout_s: float | None = None) -> AsyncGenerator[LlmStreamChunk, None]:
        body = self._body(messages, tools, response_format, model, temperature)
        timeout = self._timeout if timeout_s is None else httpx.Timeout(timeout_s)
        yielded = False
        for attempt in range(1, self._max_retries + 2):
            try:
                async with aclosing(self._attempt(body, timeout)) as chunks:
                    async for chunk in chunks:
                        yielded = True
                        yield chunk
                return
            except _Retryable as failure:
                wait = None if yielded else self._wait_before_retry(failure, attempt)
                if wait is None:
                    yield ErrorChunk(message=failure.message, retryable=True,
                                     status=failure.status)
                    return
                log.warning("chat model %s failed (%s, attempt %d); retrying in %.1fs",
                            body["model"], failure.message, attempt, wait)
                await self._sleep(wait)

    def _body(self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec] | None,
              response_format: JsonSchemaFormat | None, model: str | None,
              temperature: float | None) -> dict[str, Any]:
        body: dict[str, Any] = {"model": model or self.model_name,
                                "messages": [_wire_message(m) for m in messages],
                                "stream": self.supports_streaming}
        if self.supports_streaming:
            body["stream_options"] = {"include_usage": True}
        if temperature is not None:
            body["temperature"] = temperature
        if self._max_tokens is not None:
            body["max_tokens"] = self._max_tokens
        if tools and self.supports_tools:
            body["tools"] = [{"type": "function",
                              "function": {"name": t.name, "description": t.description,
                                           "parameters": t.parameters}} for t in tools]
        if response_format is not None and self._schema_dialect == "llama_cpp":
            # llama.cpp's Python server constrains the output to the schema by a grammar,
            # asked for as JSON mode with the schema beside it.
            body["response_format"] = {"type": "json_object",
                                       "schema": response_format.json_schema}
        elif response_format is not None:  # without schema support: JSON mode, schema in prompt
            schema = {"name": response_format.name, "schema": response_format.json_schema,
                      "strict": response_format.strict}
            body["response_format"] = ({"type": "json_schema", "json_schema": schema}
                                       if self.supports_json_schema else {"type": "json_object"})
        return body

    def _wait_before_retry(self, failure: _Retryable, attempt: int) -> float | None:
        if attempt > self._max_retries:
            return None
        if failure.retry_after is not None:
            return failure.retry_after if failure.retry_after <= self._max_retry_after_s else None
        return float(min(self._backoff_s * 2 ** (attempt - 1), self._max_backoff_s))

    async def _attempt(self, body: dict[str, Any],
                       timeouts: httpx.Timeout) -> AsyncGenerator[LlmStreamChunk, None]:
        """One request. Yields chunks; raises ``_Retryable`` for failures worth another go."""
        try:
            async with self._client.stream("POST", self._url, json=body, headers=self._headers,
                                           timeout=timeouts) as response:
                if (sent := request_sent.get()) is not None:
                    sent.set()
                if not response.is_success:
                    yield await _http_error(response)
                    return
                if "application/json" in response.headers.get("content-type", ""):
                    # A whole completion (streaming off, or ignored): replayed as one event.
                    lines = _one_event(await response.aread())
                else:
                    lines = response.aiter_lines()
                decoder, pending = _Decoder(), list[str]()
                async for line in lines:
                    if (data := _sse_line(line, pending)) is None:
                        continue
                    if data.strip() == "[DONE]":
                        decoder.done = True
                        break
                    for chunk in decoder.feed(_parse_json(data)):
                        yield chunk
                        if isinstance(chunk, ErrorChunk):
                            return
                else:  # EOF. An event left without its blank line is incomplete: dropped.
                    decoder.done = (_sse_line("", pending) or "").strip() == "[DONE]"
                if not decoder.done and decoder.finish_reason is None:
                    raise _Retryable("the stream ended before the response was complete")
                for chunk in decoder.finish():
                    yield chunk
        except httpx.TimeoutException as exc:
            raise _Retryable(f"the model endpoint timed out ({type(exc).__name__})") from exc
        except httpx.RequestError as exc:
            raise _Retryable(f"the model endpoint failed ({type(exc).__name__}: {exc})") from exc


@dataclass
class _ToolDraft:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class _Decoder:
    """Turns chat.completion(.chunk) objects into chunks: text at once, tool calls held until
    the choice finishes, usage kept for the ``DoneChunk``."""

    def __init__(self) -> None:
        self._tools: dict[int, _ToolDraft] = {}
        self._last_key: int | None = None
        self._refusal: list[str] = []
        self.finish_reason: str | None = None
        self.usage: Usage | None = None
        self.done = False

    def feed(self, payload: dict[str, Any]) -> list[LlmStreamChunk]:
        if payload.get("error"):
            return [_stream_error(payload["error"])]
        usage = _as_dict(payload.get("usage")) or _as_dict(
            _as_dict(payload.get("x_groq")).get("usage"))
        if usage:
            self.usage = Usage(input_tokens=_count(usage.get("prompt_tokens")),
                               output_tokens=_count(usage.get("completion_tokens")))
        out: list[LlmStreamChunk] = []
        for choice in payload.get("choices") or []:
            choice = _as_dict(choice)
            if choice.get("index", 0) != 0:  # we never ask for n > 1
                continue
            delta = _as_dict(choice.get("delta")) or _as_dict(choice.get("message"))
            if isinstance(text := delta.get("content"), str) and text:
                out.append(TextChunk(text=text))
            if isinstance(refusal := delta.get("refusal"), str):
                self._refusal.append(refusal)
            for position, fragment in enumerate(delta.get("tool_calls") or []):
                self._add_fragment(position, _as_dict(fragment))
            if isinstance(reason := choice.get("finish_reason"), str) and reason:
                self.finish_reason = reason
                out += self._flush_tools()
        return out

    def finish(self) -> list[LlmStreamChunk]:
        out = self._flush_tools()
        if out and isinstance(out[-1], ErrorChunk):
            return out
        if self._refusal:
            return [*out, ErrorChunk(message=f"the model refused: {''.join(self._refusal)}",
                                     retryable=False)]
        return [*out, DoneChunk(finish_reason=self.finish_reason, usage=self.usage)]

    def _add_fragment(self, position: int, fragment: dict[str, Any]) -> None:
        index, call_id = fragment.get("index"), fragment.get("id")
        if isinstance(index, int):
            key = index
        elif call_id:  # no index (some local servers): the id tells calls apart
            key = next((k for k, d in self._tools.items() if d.id == call_id),
                       max(self._tools, default=-1) + 1)
        else:
            key = self._last_key if self._last_key is not None else position
        draft = self._tools.setdefault(key, _ToolDraft())
        self._last_key = key
        function = _as_dict(fragment.get("function"))
        draft.id = draft.id or (call_id if isinstance(call_id, str) else "")
        draft.name = draft.name or (name if isinstance(name := function.get("name"), str) else "")
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            draft.arguments.append(arguments)
        elif isinstance(arguments, dict):  # an already-parsed object (non-streamed, Ollama)
            draft.arguments.append(json.dumps(arguments))

    def _flush_tools(self) -> list[LlmStreamChunk]:
        drafts, self._tools, self._last_key = sorted(self._tools.items()), {}, None
        calls: list[LlmStreamChunk] = []
        bad: list[str] = []
        for key, draft in drafts:
            try:
                arguments = json.loads("".join(draft.arguments).strip() or "{}")
            except json.JSONDecodeError:
                arguments = None
            if not draft.name or not isinstance(arguments, dict):
                bad.append(repr(draft.name) if draft.name else f"#{key} (no name)")
                continue
            calls.append(ToolChunk(id=draft.id or f"call_{key}", name=draft.name,
                                   arguments=arguments))
        if bad:
            return [ErrorChunk(message=f"the model sent malformed JSON arguments for tool "
                                       f"{', '.join(bad)}", retryable=False)]
        return calls


def _sse_line(line: str, pending: list[str]) -> str | None:
    """Server-sent events, one line at a time: ``data:`` fields gather in ``pending`` until a
    blank line ends the event, whose data is returned. Comments (keep-alives), ``event:``,
    ``id:`` and ``retry:`` are ignored: chat completions use none of them."""
    if not line:
        data = "\n".join(pending) if pending else None
        pending.clear()
        return data
    name, _, value = line.partition(":")
    if name == "data":
        pending.append(value.removeprefix(" "))
    return None


async def _one_event(body: bytes) -> AsyncIterator[str]:
    for line in ("data:" + body.decode("utf-8", errors="replace"), "", "data: [DONE]", ""):
        yield line


def _wire_message(message: ChatMessage) -> dict[str, Any]:
    wire: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        wire["tool_calls"] = [{"id": c.id, "type": "function", "function": {
            "name": c.name, "arguments": json.dumps(c.arguments, ensure_ascii=False)}}
            for c in message.tool_calls]
    if message.tool_call_id is not None:
        wire["tool_call_id"] = message.tool_call_id
    return wire


async def _http_error(response: httpx.Response) -> ErrorChunk:
    await response.aread()
    message, code = _error_details(response)
    return _failure(message, response.status_code, code, _retry_after(response.headers))


def _failure(message: str, status: int | None, code: str | None = None,
             retry_after: float | None = None) -> ErrorChunk:
    """The final ``ErrorChunk`` for a failure; raises ``_Retryable`` when another try may do."""
    if (status is not None and (status in _RETRYABLE_4XX or status >= 500)
            and code not in _FINAL_ERROR_CODES):
        raise _Retryable(message, status=status, retry_after=retry_after)
    return ErrorChunk(message=message, retryable=False, status=status)


def _error_details(response: httpx.Response) -> tuple[str, str | None]:
    """Message and code from ``{"error": {"message", "type", "code"}}`` or other servers' shapes."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            code = error.get("code") or error.get("type")
            return error["message"], code if isinstance(code, str) else None
        for candidate in (error, body.get("message"), body.get("detail")):
            if isinstance(candidate, str) and candidate:
                return candidate, None
    text = response.text.strip()[:500]
    return text or f"HTTP {response.status_code} {response.reason_phrase}", None


def _stream_error(error: Any) -> ErrorChunk:
    """An ``{"error": …}`` object sent inside a 200 stream (vLLM, OpenRouter, gateways)."""
    details = _as_dict(error)
    code = details.get("code")
    return _failure(str(details.get("message") or error), code if isinstance(code, int) else None)


def _retry_after(headers: httpx.Headers) -> float | None:
    """Seconds to wait from ``retry-after-ms`` (OpenAI) or ``Retry-After`` (seconds or an
    HTTP-date); None when absent or unreadable."""
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        try:
            seconds = float(headers.get(name, "nan")) / scale
        except ValueError:
            continue
        if math.isfinite(seconds):
            return max(seconds, 0.0)
    try:
        when = parsedate_to_datetime(headers.get("retry-after", ""))
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max((when - datetime.now(UTC)).total_seconds(), 0.0)


def _parse_json(data: str) -> dict[str, Any]:
    try:
        payload = json.loads(data)
    except json.JSONDecodeError as exc:
        raise _Retryable(f"the model endpoint sent unreadable JSON ({exc.msg})") from exc
    if not isinstance(payload, dict):
        raise _Retryable("the model endpoint sent JSON that is not an object")
    return payload


def _as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _count(value: Any) -> int:
    return value if isinstance(value, int) and value >= 0 else 0
