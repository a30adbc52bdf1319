"""Conversation context (spec conversation_context_v0_1): the store's failure rules, the
``activeNodeIds`` merge, and the prompt aspect that names the concepts already in scope.

Context is never a hard dependency: a failed load is an empty context, a failed save is a
log line, and a failed node resolution drops the paragraph for that turn."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from regintel.concepts.graph import GraphClient
from regintel.domain.concepts import EMPTY_CONTEXT, ConversationContext, ConversationIdentity
from regintel.ports.concepts import ConversationContextStore

log = logging.getLogger(__name__)

# Sentinel phrases: tests and the prompt builder look for these exact strings.
CONTEXT_ASPECT_HEADER = ("In this conversation, the following regulatory concepts are already "
                         "in scope:")
CONTEXT_ASPECT_FOOTER = "Where relevant, prefer grounded explanations that reuse these concepts."


def merge_active_node_ids(existing: Sequence[str], referenced: Sequence[str], *,
                          max_nodes: int) -> list[str]:
    """Union, oldest first; a node referenced again becomes the most recent, and the oldest
    fall off past ``max_nodes`` (recency is the only signal v0.1 has)."""
    turn = list(dict.fromkeys(referenced))
    kept = [x for x in dict.fromkeys(existing) if x not in set(turn)]
    merged = kept + turn
    return merged[-max_nodes:] if max_nodes > 0 else []


class ConversationContextService:
    def __init__(self, store: ConversationContextStore, *, max_active_nodes: int) -> None:
        self.store = store
        self.max_active_nodes = max_active_nodes

    async def load(self, identity: ConversationIdentity) -> ConversationContext:
        """The stored context; EMPTY_CONTEXT when there is none or the store fails."""
        try:
            ctx = await self.store.load(identity)
        except Exception as exc:  # spec §4.3: log and carry on as if empty
            log.warning("conversation context not loaded (%s: %s) [conversation=%s]",
                        type(exc).__name__, exc, identity.conversation_id)
            return EMPTY_CONTEXT.model_copy(deep=True)
        return ctx if ctx is not None else EMPTY_CONTEXT.model_copy(deep=True)

    async def record_turn(self, identity: ConversationIdentity, loaded: ConversationContext,
                          referenced: Sequence[str]) -> ConversationContext:
        """Merge the turn's referenced nodes into ``loaded`` and save. Returns the new
        context even when saving failed (the turn still reports it)."""
        ctx = ConversationContext(activeNodeIds=merge_active_node_ids(
            loaded.activeNodeIds, referenced, max_nodes=self.max_active_nodes))
        if ctx == loaded:
            return ctx
        try:
            await self.store.save(identity, ctx)
        except Exception as exc:  # spec §4.3: a failed save never fails the chat
            log.warning("conversation context not saved (%s: %s) [conversation=%s]",
                        type(exc).__name__, exc, identity.conversation_id)
        return ctx


async def conversation_context_aspect(node_ids: Sequence[str],
                                      client: GraphClient) -> str | None:
    """The "already in scope" paragraph for the system prompt, or None when there is nothing
    to say or the graph cannot say it."""
    if not node_ids:
        return None
    try:
        summaries = await client.summaries(node_ids)
    except Exception as exc:  # spec §4.3: omit the paragraph for this turn
        log.warning("conversation context aspect omitted: nodes not resolved (%s: %s)",
                    type(exc).__name__, exc)
        return None
    if not summaries:
        return None
    lines = []
    for s in summaries:
        tag = f"{s.prefLabel} ({s.jurisdiction})" if s.jurisdiction else s.prefLabel
        lines.append(f"- {tag} – {s.shortDescription}" if s.shortDescription else f"- {tag}")
    return "\n".join([CONTEXT_ASPECT_HEADER, *lines, CONTEXT_ASPECT_FOOTER])
