"""Chat events as Server-Sent Events.

``status`` {"node"}, ``text`` {"delta"}, ``meta`` (the full ChatResponse), ``error`` (a
problem body). ``status`` {"node": "accepted"} opens the stream when the run is slow to start
(under load the guardrails alone can take seconds), so the user sees progress at once.

The chat run is driven by a task of its own that feeds a small queue: the whole run then
lives in one task (its context variables stay consistent), the route can wait for the first
event and turn early refusals into ordinary 4xx responses, and when the client goes away the
response cancels that task, so an abandoned turn stops working instead of finishing unseen."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator
from functools import partial
from typing import Any, get_args

import anyio
from fastapi.responses import StreamingResponse
from pydantic import BaseModel
from starlette.types import Receive, Scope, Send

from regintel.api.errors import problem_body, status_for
from regintel.chat.service import ChatEvent, EventKind
from regintel.errors import RegintelError

log = logging.getLogger(__name__)
_QUEUE_SIZE = 64  # back-pressure: a slow reader pauses the run instead of buffering it
ACCEPTED = "accepted"  # the status sent when the run has not produced an event in time


def encode(kind: str, data: Any) -> bytes:
    payload = data.model_dump(mode="json") if isinstance(data, BaseModel) else data
    return f"event: {kind}\ndata: {json.dumps(payload, ensure_ascii=False)}\n\n".encode()


def _payload(event: ChatEvent) -> Any:
    return {"delta": event.data} if event.kind == "text" else event.data


class ChatStream:
    def __init__(self, events: AsyncIterator[ChatEvent],
                 gate: asyncio.Semaphore | None = None) -> None:
        self._gate = gate
        self._queue: asyncio.Queue[ChatEvent | BaseException | None] = asyncio.Queue(
            _QUEUE_SIZE)
        self._task = asyncio.create_task(self._produce(events), name="regintel-chat-turn")
        self._next: asyncio.Future[ChatEvent | BaseException | None] | None = None
        self.cancelled = False

    async def _produce(self, events: AsyncIterator[ChatEvent]) -> None:
        try:
            async with self._gate or contextlib.nullcontext():
                async for event in events:
                    await self._queue.put(event)
            await self._queue.put(None)
        except Exception as exc:  # handed to the reader, who decides how to report it
            await self._queue.put(exc)

    async def first(self, wait_s: float) -> ChatEvent | None:
        """The first event, or the error that ended the run before it, if either comes
        within ``wait_s``; None when the run is still busy (the stream then opens with an
        ``accepted`` status, and any later refusal arrives as an ``error`` event)."""
        self._next = asyncio.ensure_future(self._queue.get())
        try:
            done, _ = await asyncio.wait({self._next}, timeout=wait_s)
        except BaseException:
            self.cancel()
            raise
        if not done:
            return None
        item = self._next.result()
        self._next = None
        if isinstance(item, BaseException):
            raise item
        if item is None:
            raise RuntimeError("the chat run ended without an event")
        return item

    async def _get(self) -> ChatEvent | BaseException | None:
        if self._next is not None:
            pending, self._next = self._next, None
            return await pending
        return await self._queue.get()

    async def body(self, first: ChatEvent | None) -> AsyncIterator[bytes]:
        try:
            if first is None:
                yield encode("status", {"node": ACCEPTED})
            else:
                yield encode(first.kind, _payload(first))
            while (item := await self._get()) is not None:
                if isinstance(item, RegintelError):
                    # The status line is long gone: the failure is the stream's last event.
                    yield encode("error", problem_body(status_for(item), item.code,
                                                       item.message, item.hint))
                    return
                if isinstance(item, BaseException):
                    log.error("chat stream failed", exc_info=item)
                    yield encode("error", problem_body(
                        500, "internal_error", "the answer could not be completed", "try again"))
                    return
                yield encode(item.kind, _payload(item))
        finally:
            self.cancel()

    def cancel(self) -> None:
        if self._next is not None:
            self._next.cancel()
        if not self._task.done():
            self.cancelled = True
            self._task.cancel()

    @property
    def task(self) -> asyncio.Task[None]:
        return self._task


class EventStreamResponse(StreamingResponse):
    """Always watches for the client leaving (Starlette does so only for ASGI spec < 2.4;
    otherwise a silent client is noticed only at the next write)."""

    media_type = "text/event-stream"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async with anyio.create_task_group() as group:
            async def run_then_stop(func: partial[Any]) -> None:
                with contextlib.suppress(OSError):  # the client left while we wrote
                    await func()
                group.cancel_scope.cancel()

            group.start_soon(run_then_stop, partial(self.stream_response, send))
            await run_then_stop(partial(self.listen_for_disconnect, receive))


SSE_EVENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "One Server-Sent Event; `data` is JSON text.",
    "required": ["event", "data"],
    "properties": {
        "event": {"type": "string"},
        "data": {"type": "string", "contentMediaType": "application/json"},
        "id": {"type": "string"},
        "retry": {"type": "integer"},
    },
}

SSE_RESPONSE: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "Server-Sent Events: `status` (node progress), `text` (answer deltas), "
        "then `meta` (the full response contract) — or `error` (a problem body).",
        # OpenAPI 3.1 without `itemSchema`: the schema of an event stream is that of one event.
        "content": {"text/event-stream": {"schema": {**SSE_EVENT_SCHEMA, "properties": {
            **SSE_EVENT_SCHEMA["properties"],
            "event": {"type": "string", "enum": list(get_args(EventKind))}}}}},
    },
}
