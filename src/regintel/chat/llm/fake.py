"""A scripted ``ChatModel`` for tests: the only stand-in for a remote model. Each call to
``stream`` plays the next scripted response; what it was sent is recorded in ``calls``.

A response is a sequence of items (chunks, or ``Pause`` to stall the stream, which is how a
test makes a provider slow) or a callable that receives the messages and returns one — for
answers that depend on the prompt, such as quoting evidence back."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from regintel.ports.llm import (
    ChatMessage,
    DoneChunk,
    ErrorChunk,
    JsonSchemaFormat,
    LlmStreamChunk,
    TextChunk,
    ToolSpec,
    Usage,
)


@dataclass(frozen=True)
class Pause:
    """Stall the stream for ``seconds`` before the next item."""

    seconds: float


Item = LlmStreamChunk | Pause
Script = Sequence[Item] | Callable[[Sequence[ChatMessage]], Sequence[Item]]


@dataclass(frozen=True)
class Call:
    messages: list[ChatMessage]
    response_format: JsonSchemaFormat | None
    model: str | None
    tools: list[ToolSpec] = field(default_factory=list)
    temperature: float | None = None
    timeout_s: float | None = None


class ScriptedChatModel:
    def __init__(self, responses: Sequence[Script], *, model_name: str = "scripted",
                 supports_tools: bool = True, supports_json_schema: bool = True,
                 supports_streaming: bool = True) -> None:
        self._responses = list(responses)
        self._model_name = model_name
        self._tools = supports_tools
        self._json_schema = supports_json_schema
        self._streaming = supports_streaming
        self.calls: list[Call] = []
        self.closed = 0  # streams closed (finished or abandoned)

    @property
    def model_name(self) -> str:
        return self._model_name

    @property
    def supports_tools(self) -> bool:
        return self._tools

    @property
    def supports_json_schema(self) -> bool:
        return self._json_schema

    @property
    def supports_streaming(self) -> bool:
        return self._streaming

    @property
    def remaining(self) -> int:
        return len(self._responses)

    async def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        tools: Sequence[ToolSpec] | None = None,
        response_format: JsonSchemaFormat | None = None,
        model: str | None = None,
        temperature: float | None = 0.0,
        timeout_s: float | None = None,
    ) -> AsyncGenerator[LlmStreamChunk, None]:
        self.calls.append(Call(list(messages), response_format, model, list(tools or []),
                               temperature, timeout_s))
        if not self._responses:
            raise AssertionError(f"no scripted response left for call {len(self.calls)}")
        script = self._responses.pop(0)
        items = script(messages) if callable(script) else script
        try:
            for item in items:
                if isinstance(item, Pause):
                    await asyncio.sleep(item.seconds)
                else:
                    yield item
        finally:
            self.closed += 1


def reply(text: str, *, usage: Usage | None = None, pieces: int = 3) -> list[Item]:
    """``text`` streamed in ``pieces`` deltas, then a normal end with ``usage``."""
    size = max(1, -(-len(text) // pieces))
    chunks: list[Item] = [TextChunk(text=text[i:i + size]) for i in range(0, len(text), size)]
    chunks.append(DoneChunk(finish_reason="stop",
                            usage=usage or Usage(input_tokens=100, output_tokens=20)))
    return chunks


def json_reply(payload: Any, *, usage: Usage | None = None) -> list[Item]:
    return reply(json.dumps(payload), usage=usage)


def error(message: str = "upstream unavailable", *, status: int | None = 503) -> list[Item]:
    return [ErrorChunk(message=message, retryable=True, status=status)]
