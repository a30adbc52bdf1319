"""Small helpers every node uses: typed views of the JSON state."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from regintel.chat.deps import TurnDeps
from regintel.chat.state import ChatState
from regintel.domain.chat import ChatRequest, ResolvedDocument, Triage
from regintel.domain.documents import ChunkHit, Document, titled

Update = dict[str, Any]
Rt = Runtime[TurnDeps]


def request_of(state: ChatState) -> ChatRequest:
    return ChatRequest.model_validate(state.get("request", {}))


def triage_of(state: ChatState) -> Triage:
    return Triage.model_validate(state.get("triage") or {})


def hits_of(state: ChatState) -> list[ChunkHit]:
    return [ChunkHit.model_validate(h) for h in state.get("hits") or []]


def documents_of(state: ChatState) -> list[Document]:
    """The turn's resolved documents, as resolution fetched them (no store round trip)."""
    return [Document.model_validate(d) for d in state.get("documents") or []]


def resolution(documents: list[Document], how: list[str]) -> Update:
    """The state fields of a resolution: the contract's view and the documents themselves."""
    # A version of a document is named with its label: "Records Rules (2014)", not the title
    # its versions share.
    return {"resolved": [ResolvedDocument(id=d.id, how=h, title=titled(d.title, d.version)
                                          if d.family_id is not None else d.title)
                         .model_dump(mode="json") for d, h in zip(documents, how, strict=True)],
            "documents": [d.model_dump(mode="json") for d in documents]}


def note(state: ChatState, key: str, value: Any) -> dict[str, Any]:
    """The turn's ``context`` with one more entry (lists are appended to)."""
    context = dict(state.get("context") or {})
    if isinstance(value, list):
        context[key] = [*context.get(key, []), *value]
    else:
        context[key] = value
    return context
