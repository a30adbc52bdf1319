"""Guardrail and triage nodes: each may answer early (``skip_llm``); later ones pass through."""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

from regintel.chat import prefetch
from regintel.chat.deps import GuardVerdict
from regintel.chat.nodes.common import Rt, Update, note, request_of, triage_of
from regintel.chat.state import ChatState
from regintel.domain.chat import Triage

log = logging.getLogger(__name__)

OFF_TOPIC = ("This assistant answers questions about regulations, company policies and "
             "compliance. Please ask about a regulatory requirement, a policy, or a document in "
             "your library.")
GREETING = ("Good day. I can summarise, answer questions about, compare and audit your "
            "regulatory documents and policies. Tag documents with @ to focus on them.")
THANKS = "You are welcome. Please let me know if further analysis is required."
PII_MASKED = "Personal data in the question was masked before it was stored or searched."
FAREWELL = "Thank you. The conversation is saved; you may return to it at any time."

_GREETING = re.compile(r"^\s*(?:hi|hello|hey|good (?:morning|afternoon|evening)|greetings|"
                       r"hallo|salaam|assalamu alaikum)\b[\s!.,]*(?:there)?[\s!.,]*$", re.I)
_THANKS = re.compile(r"^\s*(?:thanks?(?: you)?(?: (?:so|very) much)?|thank you|cheers|"
                     r"great,? thanks?|much appreciated)\b[\s!.,]*$", re.I)
_FAREWELL = re.compile(r"^\s*(?:bye|goodbye|see you|that's all|that is all)\b[\s!.,]*$", re.I)
_COMPLIANCE = re.compile(
    r"\b(?:regulat\w*|rule\w*|polic\w*|complian\w*|law\w*|require\w*|obligat\w*|aml|cft|kyc|"
    r"cdd|edd|sanction\w*|gdpr|act|article|clause|section|document\w*|audit\w*|risk\w*|"
    r"report\w*|licen[cs]\w*|fsra|adgm|firm|customer\w*|client\w*|capital|fund\w*|disclos\w*|"
    r"data|privacy|consent|penalt\w*|fine\w*|govern\w*|control\w*|money|launder\w*|"
    r"terror\w*|fraud\w*|record\w*|train\w*|mlro|officer|board|market\w*|invest\w*|bank\w*|"
    r"insur\w*|summar\w*|compar\w*|differ\w*)\b", re.I)
_OFF_TOPIC = re.compile(
    r"\b(?:weather|joke|recipe|cook\w*|football|soccer|cricket|movie|film|song|lyrics|poem|"
    r"horoscope|celebrity|holiday destination|dating|video game|nba|nfl|pizza|restaurant)\b",
    re.I)


def _skip(triage: Triage, route: str, response: str, line: str) -> Update:
    return {"triage": triage.model_copy(update={
        "route": route, "skip_llm": True, "early_response": response,
        "triage_log": [*triage.triage_log, line]}).model_dump(mode="json")}


def _passed(triage: Triage, line: str) -> Update:
    return {"triage": triage.model_copy(update={
        "triage_log": [*triage.triage_log, line]}).model_dump(mode="json")}


async def guardrail_input(state: ChatState, runtime: Rt) -> Update:
    """Applies the verdict the service took before the run (so no raw personal data ever
    reaches a checkpoint); checks the message itself when the graph is run without one."""
    deps = runtime.context
    triage = triage_of(state)
    screened = state.get("screened")
    if not screened:
        with deps.timed("guardrails"):  # embeds the message: keep the event loop free
            screened = screen(await asyncio.to_thread(deps.guard.check,
                                                      state.get("message", "")))
    update: Update = {"message": screened.get("masked_text", state.get("message", ""))}
    lines = [f"guardrail_input: {line}" for line in screened["log"]] or \
        ["guardrail_input: pass"]
    triage = triage.model_copy(update={"triage_log": [*triage.triage_log, *lines]})
    if screened["blocked"]:
        log.warning("input blocked (%s) for tenant %s", screened["category"], deps.tenant_id)
        update |= _skip(triage, "blocked", screened["response"] or OFF_TOPIC,
                        f"guardrail_input: blocked ({screened['category']})")
    else:
        update["triage"] = triage.model_dump(mode="json")
    if screened["masked"]:
        update["context"] = note(state, "notices", [PII_MASKED])
    return update


def screen(verdict: GuardVerdict, *, masked: bool | None = None) -> dict[str, Any]:
    """The verdict as plain state data."""
    return {"blocked": verdict.blocked, "category": verdict.category,
            "response": verdict.response, "log": list(verdict.log),
            "masked_text": verdict.masked_text,
            "masked": bool(masked) if masked is not None else any(
                line.startswith("pii:") for line in verdict.log)}


async def triage_relevance(state: ChatState, runtime: Rt) -> Update:
    triage = triage_of(state)
    if triage.skip_llm:
        return {}
    request = request_of(state)
    message = state.get("message", "")
    focused = bool(request.tagged_doc_ids or request.tagged_set_ids or request.action
                   or request.source_text)
    if not focused and _OFF_TOPIC.search(message) and not _COMPLIANCE.search(message):
        return _skip(triage, "off_topic", OFF_TOPIC, "triage_relevance: off-topic")
    return _passed(triage, "triage_relevance: on-topic")


async def triage_faq(state: ChatState, runtime: Rt) -> Update:
    triage = triage_of(state)
    deps = runtime.context
    if triage.skip_llm or deps.faq is None or request_of(state).tagged_doc_ids:
        return {}
    try:
        answer = await deps.faq.match(deps.tenant_id, state.get("message", ""))
    except Exception:  # a broken FAQ store must not stop the answer
        log.exception("FAQ lookup failed")
        return _passed(triage, "triage_faq: unavailable")
    if answer:
        return _skip(triage, "faq", answer, "triage_faq: matched a tenant FAQ entry")
    return _passed(triage, "triage_faq: no match")


async def triage_intent(state: ChatState, runtime: Rt) -> Update:
    triage = triage_of(state)
    if triage.skip_llm:
        return {}
    request = request_of(state)
    message = state.get("message", "")
    if not (request.tagged_doc_ids or request.action):
        for pattern, route, response in ((_GREETING, "greeting", GREETING),
                                         (_THANKS, "thanks", THANKS),
                                         (_FAREWELL, "farewell", FAREWELL)):
            if pattern.match(message):
                return _skip(triage, route, response, f"triage_intent: {route}")
    return _passed(triage, "triage_intent: task")


async def bundle_triage_response(state: ChatState, runtime: Rt) -> Update:
    await prefetch.cancel(runtime.context)  # triage answered: the intent call is not needed
    return {"answer": triage_of(state).early_response or "", "citations": [], "hits": []}
