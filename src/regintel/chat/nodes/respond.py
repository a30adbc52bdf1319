"""The end of a turn: the registry of documents in play, and the response contract."""

from __future__ import annotations

import logging
from typing import cast
from uuid import UUID

from regintel.chat.nodes.common import Rt, Update, triage_of
from regintel.chat.nodes.resolve import answer_notice, register
from regintel.chat.state import ChatState
from regintel.chat.streaming import AnswerStream
from regintel.domain.chat import (
    Action,
    AuditResult,
    ChatResponse,
    Citation,
    ComparisonResult,
    ConfidenceOut,
    Engine,
    Inference,
    NeedsInput,
    ResolvedDocument,
    SummaryResult,
    Usage,
    Validation,
)

log = logging.getLogger(__name__)


def build_response(state: ChatState, thread_id: UUID,
                   needs_input: NeedsInput | None = None) -> ChatResponse:
    result = state.get("result") or {}
    action = state.get("action")
    answer = state.get("answer", "")
    notice = state.get("notice")
    if needs_input is not None:
        answer = needs_input.message
    elif notice and answer:
        answer = f"{notice}\n\n{answer}"
    confidence = state.get("confidence")
    return ChatResponse(
        thread_id=thread_id, action=Action(action) if action else None, answer=answer,
        citations=[Citation.model_validate(c) for c in state.get("citations") or []],
        confidence=ConfidenceOut.model_validate(confidence) if confidence else None,
        resolved_documents=[ResolvedDocument.model_validate(r)
                            for r in state.get("resolved") or []],
        inference=Inference.model_validate(state.get("inference") or {}),
        needs_input=needs_input,
        summary=SummaryResult.model_validate(result["summary"]) if "summary" in result
        else None,
        comparison=ComparisonResult.model_validate(result["comparison"])
        if "comparison" in result else None,
        audit=AuditResult.model_validate(result["audit"]) if "audit" in result else None,
        referenced_nodes=list(state.get("referenced_nodes") or []),
        context=dict(state.get("context") or {}),
        validation=Validation.model_validate(state.get("validation") or {}),
        triage=triage_of(state))


async def format_response(state: ChatState, runtime: Rt) -> Update:
    deps = runtime.context
    resolved = [ResolvedDocument.model_validate(r) for r in state.get("resolved") or []]
    spent = deps.engine.record()
    update: Update = {"registry": register(state),
                      "notice": answer_notice(state, resolved, spent.notice)}
    response = build_response(cast(ChatState, {**state, **update}), deps.conversation_id)
    response.engine = Engine(deps.engine.name)
    response.usage = Usage(input_tokens=spent.input_tokens, output_tokens=spent.output_tokens,
                           cost_usd=spent.cost_usd)
    if spent.fallbacks:
        response.context["fallbacks"] = list(spent.fallbacks)
    if spent.notice:  # the badge names the engine that wrote the answer
        response.context["answered_by"] = "offline"
    if spent.models:
        response.context["models"] = list(spent.models)
    AnswerStream(runtime.stream_writer, sent=state.get("streamed", "")).finish(response.answer)
    update["response"] = response.model_dump(mode="json")
    exchange_id = (state.get("context") or {}).get("exchange_id")
    if exchange_id:
        try:  # the answer as sent, for a reopened conversation to show it again
            await deps.conversations.set_response(deps.tenant_id, deps.conversation_id,
                                                  UUID(str(exchange_id)), update["response"])
        except Exception:  # a history without it falls back to the stored fields
            log.exception("the response could not be kept with its message")
    try:
        await deps.conversations.record_usage(
            deps.tenant_id, user_id=deps.user_id, conversation_id=deps.conversation_id,
            action=response.action.value if response.action else "",
            engine=response.engine.value, model=",".join(spent.models),
            input_tokens=response.usage.input_tokens,
            output_tokens=response.usage.output_tokens, cost_usd=response.usage.cost_usd)
    except Exception:  # usage accounting must not cost the user their answer
        log.exception("usage could not be recorded")
    return update
