"""The egress guard: personal data never leaves for a provider marked external.

The question is already masked by the input guardrail before anything is stored; what remains
is everything else a prompt carries — retrieved passages of the tenant's own documents (a
policy names its officer and gives their email), memory, pasted text. ``RedactingChatModel`` wraps
an external provider's ``ChatModel`` and replaces every PII span in every message with a typed
placeholder (``<EMAIL_ADDRESS>``) before the request is built.

The redaction is not reversed in the answer: nothing in the specs allows putting personal data
back into model output, and the quotes a user sees are cut from our own stored text anyway, so
they keep the original wording.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import OrderedDict
from collections.abc import AsyncGenerator, Callable, Sequence
from contextlib import aclosing

from regintel.ports.llm import (
    ChatMessage,
    ChatModel,
    JsonSchemaFormat,
    LlmStreamChunk,
    ToolSpec,
)

log = logging.getLogger(__name__)

FindPii = Callable[[str], list[tuple[str, int, int]]]


def redact(text: str, find_pii: FindPii) -> tuple[str, int]:
    """``text`` with each PII span replaced by ``<KIND>``, and how many spans there were."""
    spans = sorted(find_pii(text), key=lambda s: -s[1])
    for kind, start, end in spans:
        text = f"{text[:start]}<{kind}>{text[end:]}"
    return text, len(spans)


class RedactingChatModel:
    """A ``ChatModel`` that redacts personal data from every message before ``inner`` sees
    it. Capability flags and the model name are the inner model's."""

    def __init__(self, inner: ChatModel, find_pii: FindPii, *, memo_size: int = 4096) -> None:
        self._inner = inner
        self._find_pii = find_pii
        self.redacted = 0  # spans redacted over the model's life (for logs and tests)
        # Messages are scanned paragraph by paragraph, each remembered: the static system
        # prompt and the evidence passages come back call after call, and scanning a 1,000-
        # character passage again costs ~3 ms for the same answer. A span never crosses a blank
        # line (an address or a name is written on one line or consecutive ones).
        self._memo: OrderedDict[str, tuple[str, int]] = OrderedDict()
        self._memo_size = memo_size
        self._lock = threading.Lock()

    def _redact(self, text: str) -> tuple[str, int]:
        parts = [self._redact_paragraph(part) for part in text.split("\n\n")]
        return "\n\n".join(clean for clean, _ in parts), sum(n for _, n in parts)

    def _redact_paragraph(self, text: str) -> tuple[str, int]:
        with self._lock:
            hit = self._memo.get(text)
            if hit is not None:
                self._memo.move_to_end(text)
                return hit
        result = redact(text, self._find_pii)
        with self._lock:
            self._memo[text] = result
            if len(self._memo) > self._memo_size:
                self._memo.popitem(last=False)
        return result

    async def prewarm(self, texts: Sequence[str]) -> None:
        """Scan ``texts`` now, off the request path (evidence found while the turn's other
        steps run), so the call that sends them finds every paragraph scanned."""
        await asyncio.to_thread(lambda: [self._redact(t) for t in texts])

    @property
    def model_name(self) -> str:
        return self._inner.model_name

    @property
    def supports_tools(self) -> bool:
        return self._inner.supports_tools

    @property
    def supports_json_schema(self) -> bool:
        return self._inner.supports_json_schema

    @property
    def supports_streaming(self) -> bool:
        return self._inner.supports_streaming

    def _clean(self, messages: Sequence[ChatMessage]) -> list[ChatMessage]:
        out = []
        for message in messages:
            if message.content:
                content, n = self._redact(message.content)
                if n:
                    self.redacted += n
                    message = message.model_copy(update={"content": content})
            out.append(message)
        return out

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
        # Presidio is CPU-bound: a worker thread keeps the event loop (and other turns) moving.
        clean = await asyncio.to_thread(self._clean, messages)
        async with aclosing(self._inner.stream(
                clean, tools=tools, response_format=response_format, model=model,
                temperature=temperature, timeout_s=timeout_s)) as chunks:
            async for chunk in chunks:
                yield chunk
