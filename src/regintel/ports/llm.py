"""Chat-model port: the messages we send, the tools we offer, and the ``LlmStreamChunk`` union a
provider streams back (concept-capture spec §3).

The stream contract, which every adapter keeps:

- ``TextChunk``s carry answer deltas in order; they are the only thing the UI may ever see.
- ``ToolChunk``s carry one whole tool call each, emitted once, with its arguments already parsed
  into a JSON object. Tool JSON never appears inside a ``TextChunk``. A tool call may come
  before, between or after text; callers must not rely on the order.
- The stream ends with exactly one terminal chunk and nothing after it: ``DoneChunk`` (finished
  normally; it carries the finish reason and token usage) or ``ErrorChunk`` (the provider
  failed; text already streamed is incomplete and tool calls not yet emitted are discarded).
  Usage travels on ``DoneChunk`` rather than in a chunk of its own, so "the stream completed"
  and "here is what it cost" arrive together and a consumer cannot see one without the other.

Failures are chunks, not exceptions: a provider that is down, rate-limited or returns malformed
tool JSON yields an ``ErrorChunk``; the engine then falls back to the offline engine. Exceptions
escape only for cancellation and programming errors.

Consumers that may stop early should close the stream deterministically, so the HTTP response
is released at once rather than when the generator is garbage-collected::

    async with contextlib.aclosing(model.stream(messages)) as chunks:
        async for chunk in chunks:
            ...
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Sequence
from contextvars import ContextVar
from typing import Annotated, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, model_validator

Role = Literal["system", "user", "assistant", "tool"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ToolCall(_Frozen):
    """A tool call the assistant made earlier in the conversation (sent back as history)."""

    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class ChatMessage(_Frozen):
    role: Role
    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = Field(
        None, description="For role 'tool': the id of the call this message answers."
    )

    @model_validator(mode="after")
    def _consistent(self) -> ChatMessage:
        if self.tool_calls and self.role != "assistant":
            raise ValueError("only assistant messages carry tool_calls")
        if (self.role == "tool") != (self.tool_call_id is not None):
            raise ValueError("tool_call_id is required on tool messages and only there")
        if self.content is None and not self.tool_calls:
            raise ValueError("a message needs content or tool_calls")
        return self


class ToolSpec(_Frozen):
    """A function the model may call; ``parameters`` is a JSON Schema object."""

    name: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")
    description: str
    parameters: dict[str, Any]


class JsonSchemaFormat(_Frozen):
    """Ask for a single JSON document matching ``json_schema`` instead of prose."""

    name: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")
    json_schema: dict[str, Any]
    strict: bool = True


class Usage(_Frozen):
    input_tokens: int = Field(ge=0)
    output_tokens: int = Field(ge=0)


class TextChunk(_Frozen):
    type: Literal["text"] = "text"
    text: str


class ToolChunk(_Frozen):
    type: Literal["tool"] = "tool"
    id: str
    name: str
    arguments: dict[str, Any]


class ErrorChunk(_Frozen):
    type: Literal["error"] = "error"
    message: str = Field(description="The provider's own message; not meant for end users.")
    retryable: bool = Field(
        description="The same request may succeed later (rate limit, outage, timeout, cut "
        "stream). The adapter has already spent its own retries when this is set."
    )
    status: int | None = Field(None, description="HTTP status, when the failure had one.")


class DoneChunk(_Frozen):
    type: Literal["done"] = "done"
    finish_reason: str | None = Field(
        None, description="As the provider said it: 'stop', 'length', 'tool_calls', …"
    )
    usage: Usage | None = Field(None, description="None when the provider reported none.")


LlmStreamChunk = Annotated[
    TextChunk | ToolChunk | ErrorChunk | DoneChunk, Field(discriminator="type")
]


# A caller that wants to know when a provider has its request sets an event here; adapters
# set it once the provider answers (its response headers). ``chat.prefetch`` lets an intent
# request leave before the turn's other work competes with it for the interpreter.
request_sent: ContextVar[asyncio.Event | None] = ContextVar("request_sent", default=None)


class ChatModel(Protocol):
    """One chat-completions endpoint. Capability flags let the engine choose a mode up front:
    no tools → answer-only (no concept capture); no JSON schema → the schema goes in the prompt
    and the engine validates the answer itself."""

    @property
    def model_name(self) -> str:
        """The model used when ``stream`` is not given one."""
        ...

    @property
    def supports_tools(self) -> bool: ...

    @property
    def supports_json_schema(self) -> bool: ...

    @property
    def supports_streaming(self) -> bool:
        """False: the adapter asks for the whole answer at once and yields it as one stream."""
        ...

    def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        tools: Sequence[ToolSpec] | None = None,
        response_format: JsonSchemaFormat | None = None,
        model: str | None = None,
        temperature: float | None = 0.0,
        timeout_s: float | None = None,
    ) -> AsyncGenerator[LlmStreamChunk, None]:
        """Stream one completion; ``aclose()`` on the generator releases the connection.
        ``tools`` are ignored when ``supports_tools`` is false. ``temperature=None`` leaves it
        to the provider (some reasoning models reject any value). ``timeout_s`` bounds each wait
        on the provider (connecting, or the silence between streamed events), not the whole
        answer; callers bound the whole turn."""
        ...
