"""Small helpers every node uses: typed views of the JSON state."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from regintel.chat.deps import TurnDeps
from regintel.chat.state import ChatState
from regintel.domain.chat import ChatRequest, Triage
from regintel.domain.documents import ChunkHit

Update = dict[str, Any]
Rt = Runtime[TurnDeps]


def request_of(state: ChatState) -> ChatRequest:
    return ChatRequest.model_validate(state.get("request", {}))


def triage_of(state: ChatState) -> Triage:
    return Triage.model_validate(state.get("triage") or {})


def hits_of(state: ChatState) -> list[ChunkHit]:
    return [ChunkHit.model_validate(h) for h in state.get("hits") or []]


def note(state: ChatState, key: str, value: Any) -> dict[str, Any]:
    """The turn's ``context`` with one more entry (lists are appended to)."""
    context = dict(state.get("context") or {})
    if isinstance(value, list):
        context[key] = [*context.get(key, []), *value]
    else:
        context[key] = value
    return context
