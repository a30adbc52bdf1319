"""Three-layer memory (when ``use_memory``): the messages themselves (recent window), a rolling
summary once a thread is long, and the Q&A index — one line per exchange with topic tags and
the documents it cited. A failing memory store is logged and flagged; the answer still comes."""

from __future__ import annotations

import asyncio
import logging

from regintel.chat.deps import TurnDeps
from regintel.chat.nodes.common import Rt, Update, note, request_of
from regintel.chat.offline.engine import topics
from regintel.chat.state import ChatState
from regintel.domain.conversations import Memory

log = logging.getLogger(__name__)


async def load_session(state: ChatState, runtime: Rt) -> Update:
    """Starts a turn: clears the previous turn's fields and loads the memory window."""
    deps = runtime.context
    request = request_of(state)
    update: Update = {
        "turn": state.get("turn", 0) + 1, "message": request.message.strip(),
        "triage": {}, "action": None, "resolved": [], "documents": [], "source_doc": None,
        "inference": {}, "unheld": [],
        "notice": None, "pending": None, "halted": False, "hits": [], "confidence": None,
        "proceed_low": False, "answer": "", "citations": [], "result": {}, "tool_log": [],
        "dropped_quotes": 0, "referenced_nodes": [], "validation": {}, "context": {},
        "response": {}, "memory": {}, "streamed": "", "concepts": None, "web": [],
        "web_requested": False}
    if not request.use_memory:
        return update
    try:
        with deps.timed("persistence"):
            memory = await deps.conversations.memory(
                deps.tenant_id, deps.conversation_id, window=deps.limits.memory_window)
        update["memory"] = memory.model_dump(mode="json")
    except Exception:
        log.exception("memory could not be loaded for conversation %s", deps.conversation_id)
        update["context"] = {"degraded": ["memory"]}
    return update


async def update_memory(state: ChatState, runtime: Rt) -> Update:
    deps = runtime.context
    if not request_of(state).use_memory:
        return {}
    question, answer = state.get("message", ""), state.get("answer", "")
    citations = state.get("citations") or []
    try:
        with deps.timed("persistence"):
            await deps.conversations.add_message(deps.tenant_id, deps.conversation_id, "user",
                                                 question)
            exchange_id = await deps.conversations.add_message(
                deps.tenant_id, deps.conversation_id, "assistant", answer,
                {"action": state.get("action"), "citations": citations,
                 "resolved": state.get("resolved") or [],
                 "route": (state.get("triage") or {}).get("route", "pipeline"),
                 # What the UI shows again after a reload: badge, typed result, cost line.
                 "confidence": state.get("confidence"), "result": state.get("result") or {},
                 "engine": deps.engine.name, "usage": _usage(deps)})
            if deps.audit_matrix is not None:
                await deps.conversations.save_audit_matrix(
                    deps.tenant_id, deps.conversation_id, exchange_id, deps.audit_matrix)
            vectors = await asyncio.to_thread(deps.embedder.embed, [question])
            titles = [r["title"] for r in state.get("resolved") or []]
            await deps.conversations.add_qa(
                deps.tenant_id, deps.conversation_id, exchange_id=exchange_id,
                question=question, answer_digest=_digest(answer),
                topics=topics(question) + titles,
                source_ids=list(dict.fromkeys(str(c["document_id"]) for c in citations
                                              if c.get("document_id"))),
                embedding=list(vectors[0]))
            await _roll_summary(state, runtime)
    except Exception:
        log.exception("memory could not be updated for conversation %s", deps.conversation_id)
        return {"context": note(state, "degraded", ["memory"])}
    return {"context": note(state, "exchange_id", str(exchange_id))}


def _usage(deps: TurnDeps) -> dict[str, float]:
    spent = deps.engine.record()
    return {"input_tokens": spent.input_tokens, "output_tokens": spent.output_tokens,
            "cost_usd": spent.cost_usd}


async def _roll_summary(state: ChatState, runtime: Rt) -> None:
    """Past ``summarize_after`` messages, everything but the last ``memory_window`` is folded
    into the rolling summary (windowing: summary + last 10)."""
    deps = runtime.context
    memory = Memory.model_validate(state.get("memory") or {})
    count = memory.message_count + 2
    if count <= deps.limits.summarize_after:
        return
    covered = count - deps.limits.memory_window
    if covered <= memory.summary_covers:
        return
    messages = await deps.conversations.messages(deps.tenant_id, deps.conversation_id)
    summary = await deps.engine.summarize_thread(memory.summary,
                                                 messages[memory.summary_covers:covered])
    await deps.conversations.save_summary(deps.tenant_id, deps.conversation_id, summary,
                                          covered)


def _digest(answer: str) -> str:
    body = " ".join(line.strip("-# ").strip() for line in answer.splitlines() if line.strip())
    return body[:240]

