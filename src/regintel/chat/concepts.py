"""The concept graph in a turn (concept-capture and conversation-context specs): before the
answer, the concepts already in scope become a system-prompt paragraph; after it, the
``capture_concepts`` payload of the main call (or, without one, the offline extractor over the
question, the answer and its quotes) is resolved into graph nodes, which the response lists as
``referenced_nodes`` and the conversation keeps as its active concepts. Nothing here may cost
the user the answer: every failure is logged and the turn goes on."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from regintel.chat.deps import TurnDeps
from regintel.concepts.extractor import SourceText
from regintel.concepts.services import TurnConcepts, TurnStart
from regintel.domain.concepts import ConversationIdentity

log = logging.getLogger(__name__)


def _identity(deps: TurnDeps) -> ConversationIdentity:
    return ConversationIdentity(tenant_id=deps.tenant_id, conversation_id=deps.conversation_id,
                                user_id=deps.user_id)


def begin_soon(deps: TurnDeps) -> None:
    """Start loading the turn's concepts now (the conversation is known), so the prompt
    aspects find them loaded; ``begin`` awaits the same load."""
    if deps.concepts is not None and deps.concept_loading is None:
        deps.concept_loading = asyncio.create_task(_load(deps))


async def begin(deps: TurnDeps) -> TurnStart | None:
    """The stored context and its prompt paragraph, loaded once per turn."""
    if deps.concepts is None:
        return None
    begin_soon(deps)
    assert deps.concept_loading is not None
    return await deps.concept_loading


async def _load(deps: TurnDeps) -> TurnStart | None:
    assert deps.concepts is not None
    try:
        with deps.timed("concepts"):
            return await deps.concepts.begin_turn(_identity(deps))
    except Exception:
        log.exception("conversation context could not be loaded")
        return None


async def finish(deps: TurnDeps, *, payloads: list[dict[str, Any]] | None, question: str,
                 answer: str, citations: list[dict[str, Any]]) -> TurnConcepts | None:
    start = await begin(deps)
    if deps.concepts is None or start is None:
        return None
    # The model may call the tool more than once; an empty list means it was offered the tool
    # and did not call it, so the extractor stands in (the spec asks for one call per turn).
    payload: dict[str, Any] | None = None
    if payloads:
        payload = {"concepts": [c for p in payloads for c in (p.get("concepts") or [])]
                   if all(isinstance(p, dict) for p in payloads) else payloads}
    sources = [SourceText(text=c["quote"], title=c.get("title") or "", url=c.get("url"))
               for c in citations if c.get("quote")]
    try:
        with deps.timed("concepts"):
            return await deps.concepts.finish_turn(_identity(deps), start, payload=payload,
                                                   question=question, answer=answer,
                                                   sources=sources)
    except Exception:
        log.exception("concepts of the turn could not be captured")
        return None
