"""The chat's tools (memory spec, "Tool Use"): what an LLM may call in its loop, and what the
offline engine calls itself. Each has a JSON schema for function calling and an async body
over the turn's stores; results are plain data the caller turns into evidence."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any
from uuid import UUID

from regintel.chat.deps import TurnDeps
from regintel.domain.conversations import QaEntry, StoredMessage
from regintel.domain.documents import ChunkHit, SearchScope
from regintel.errors import NotFound
from regintel.retrieval import strategies

TOOL_SCHEMAS: list[dict[str, Any]] = [
    {"type": "function", "function": {
        "name": "search_knowledge_base",
        "description": "Search the tenant's documents (optionally only some) for passages.",
        "parameters": {"type": "object", "required": ["query"], "properties": {
            "query": {"type": "string", "description": "What to look for."},
            "document_ids": {"type": "array", "items": {"type": "string"}, "maxItems": 5}}}}},
    {"type": "function", "function": {
        "name": "retrieve_past_answer",
        "description": "The full text and sources of an earlier answer in this conversation.",
        "parameters": {"type": "object", "required": ["exchange_id"], "properties": {
            "exchange_id": {"type": "string"}}}}},
    {"type": "function", "function": {
        "name": "lookup_past_conversation",
        "description": "Earlier exchanges of this conversation about a topic.",
        "parameters": {"type": "object", "required": ["topic"], "properties": {
            "topic": {"type": "string"}}}}},
]


LIBRARY_HITS = 8  # chunks a question over the whole library reads


async def search_knowledge_base(deps: TurnDeps, query: str,
                                document_ids: Sequence[UUID] = (), *,
                                set_ids: Sequence[UUID] = ()) -> list[ChunkHit]:
    """Adaptive-k over the given documents (so none is crowded out), else the library."""
    if document_ids:
        return await strategies.adaptive_k(deps.retriever, deps.tenant_id, query,
                                           list(document_ids),
                                           threshold=deps.limits.adaptive_threshold)
    return await deps.retriever.search(deps.tenant_id, query, k=LIBRARY_HITS,
                                       scope=SearchScope(set_ids=tuple(set_ids)))


async def retrieve_past_answer(deps: TurnDeps, exchange_id: UUID) -> StoredMessage:
    message = await deps.conversations.get_message(deps.tenant_id, deps.conversation_id,
                                                   exchange_id)
    if message.role != "assistant":
        raise NotFound(f"no answer {exchange_id} in this conversation")
    return message


async def lookup_past_conversation(deps: TurnDeps, topic: str) -> list[QaEntry]:
    vectors = await asyncio.to_thread(deps.embedder.embed, [topic])
    return await deps.conversations.search_qa(deps.tenant_id, deps.conversation_id,
                                              topic=topic, vector=list(vectors[0]), k=5)
