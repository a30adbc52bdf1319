"""The embedded model server as a ``ChatModel``: the OpenAI-compatible adapter pointed at the
server of ``runtime.llama_server``, which every call makes sure is running first. A server
found dead (killed, crashed) is started again by the next call; the call that lost it fails
like any provider failure, and its step falls back to the offline engine."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Sequence

import httpx

from regintel.adapters.llm.openai_compatible import OpenAICompatibleChatModel
from regintel.errors import DependencyUnavailable
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
from regintel.runtime.llama_server import LocalModelLease

CHARS_PER_TOKEN = 3  # as the window fitting counts (chat.llm.routing)


class LocalServerChatModel:
    def __init__(self, lease: LocalModelLease, *, model: str, client: httpx.AsyncClient,
                 timeout_s: float, supports_tools: bool, max_tokens: int) -> None:
        self._lease = lease
        self._client = client
        self._timeout_s = timeout_s
        self._max_tokens = max_tokens
        self.model_name = model
        self.supports_tools = supports_tools
        self.supports_json_schema = True
        self.supports_streaming = True
        self._adapter: OpenAICompatibleChatModel | None = None
        self._base_url = ""
        self._starting = asyncio.Lock()

    async def _ready(self) -> OpenAICompatibleChatModel:
        async with self._starting:
            state = await asyncio.to_thread(self._lease.ensure)
        if self._adapter is None or state.base_url != self._base_url:
            # A restarted server may listen on another port.
            self._base_url = state.base_url
            self._adapter = OpenAICompatibleChatModel(
                base_url=state.base_url, model=self.model_name, timeout_s=self._timeout_s,
                supports_tools=self.supports_tools, supports_json_schema=True,
                schema_dialect="llama_cpp", max_tokens=self._max_tokens,
                # One retry: a local failure is a dead or overloaded server, not a blip.
                max_retries=1, client=self._client)
        return self._adapter

    async def stream(self, messages: Sequence[ChatMessage], *,
                     tools: Sequence[ToolSpec] | None = None,
                     response_format: JsonSchemaFormat | None = None, model: str | None = None,
                     temperature: float | None = 0.0,
                     timeout_s: float | None = None) -> AsyncGenerator[LlmStreamChunk, None]:
        try:
            adapter = await self._ready()
        except DependencyUnavailable as exc:
            yield ErrorChunk(message=str(exc), retryable=False)
            return
        streamed = 0
        async for chunk in adapter.stream(messages, tools=tools,
                                          response_format=response_format, model=model,
                                          temperature=temperature, timeout_s=timeout_s):
            if isinstance(chunk, TextChunk):
                streamed += 1
            elif isinstance(chunk, DoneChunk) and chunk.usage is None:
                # llama-cpp-python's server reports no usage on a stream (it ignores
                # stream_options): it streams one token a chunk, and the prompt is
                # estimated from its characters.
                chunk = chunk.model_copy(update={"usage": Usage(
                    input_tokens=sum(len(m.content or "") for m in messages) // CHARS_PER_TOKEN,
                    output_tokens=streamed)})
            yield chunk

    async def count_tokens(self, text: str) -> int | None:
        """``text``'s tokens by the model's own tokenizer (the server's count endpoint); None
        when the server cannot say."""
        try:
            await self._ready()
            response = await self._client.post(
                f"{self._base_url.removesuffix('/v1')}/extras/tokenize/count",
                json={"input": text}, timeout=60)
            return int(response.json()["count"])
        except (DependencyUnavailable, httpx.HTTPError, KeyError, ValueError, TypeError):
            return None
