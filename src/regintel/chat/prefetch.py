"""Work started ahead of its node. Two steps of a new question depend only on the screened
question and the tagged scope, both known once the input guardrail has run: the intent call
and the first knowledge-base search (with its passage screening and the engine's preparation
of the evidence). The graph's other early steps (the conversation, memory, triage, document
resolution, the prompt aspects) do not change them, so the turn starts both at once — the
intent request first, alone — and lets them run while those steps do, and while the model
answers the intent call.

A node takes the result when its own question and scope are the same, or does the work anew
when they are not (implicit references widened the scope; a resumed turn). A turn that ends on
another path (triage answered, another action) cancels what is left, triage as soon as it
answers: an intent call cancelled then has cost a few hundred input tokens, on a minority of
messages, for all of that work leaving the path to every other answer's first word.

Nothing here runs before the guardrail has masked the question."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any
from uuid import UUID

from regintel.chat import instrument_names, question_text, tools
from regintel.chat.ahead import Ahead, Searched
from regintel.chat.deps import TurnDeps
from regintel.chat.engine import IntentGuess
from regintel.chat.named_documents import may_name_documents, named_documents
from regintel.domain.documents import DocStatus
from regintel.ports.llm import request_sent
from regintel.retrieval import abbreviations, reading

log = logging.getLogger(__name__)
SEND_WAIT_S = 0.05


async def start(deps: TurnDeps, question: str, document_ids: Sequence[UUID],
                set_ids: Sequence[UUID], *, intent: bool, new_thread: bool) -> None:
    """The intent call (when the request does not name its action), then the search. The
    intent request leaves first, alone: the turn waits until the provider has it (or no call
    was needed, or ``SEND_WAIT_S`` passed) before starting work that would compete with it
    for the interpreter; that wait is spent inside the model's latency, not added to it."""
    ahead = Ahead(question, tuple(document_ids), tuple(set_ids))
    deps.ahead = ahead
    if intent:
        sent = asyncio.Event()
        ahead.intent = asyncio.create_task(_classify(deps, question, sent))
        waiting = asyncio.create_task(sent.wait())
        await asyncio.wait([ahead.intent, waiting], timeout=SEND_WAIT_S,
                           return_when=asyncio.FIRST_COMPLETED)
        waiting.cancel()
    ahead.search = asyncio.create_task(_search_ahead(deps, ahead, new_thread=new_thread))


async def _classify(deps: TurnDeps, question: str, sent: asyncio.Event) -> IntentGuess:
    request_sent.set(sent)  # this task's own context: only its request signals
    return await deps.engine.classify_intent(question)


async def search(deps: TurnDeps, question: str, document_ids: Sequence[UUID],
                 set_ids: Sequence[UUID]) -> Searched:
    """``search_knowledge_base``, what the hits need around them to be read
    (``reading.around``), then the passage screen of all of them, in one pass."""
    question = question_text.without_mentions(question)
    with deps.timed("retrieval"):
        found = await tools.search_knowledge_base(deps, question, list(document_ids),
                                                  set_ids=list(set_ids))
        # An abbreviation the passages found never use ("SLA": the contract says "service
        # level agreement") is spelled out, and the library searched again.
        spelled = abbreviations.expand(question, unless_in=[h.text for h in found])
        if spelled != question:
            found = await tools.search_knowledge_base(deps, spelled, list(document_ids),
                                                      set_ids=list(set_ids))
        found = await reading.around(deps.index, deps.tenant_id, found, question)
    with deps.timed("guardrails"):
        flags = await asyncio.to_thread(lambda: [deps.guard.scan_passage(h.text) for h in found])
    return Searched(found, flags)


async def _search_ahead(deps: TurnDeps, ahead: Ahead, *, new_thread: bool) -> Searched:
    if new_thread and not ahead.document_ids and not ahead.set_ids:
        ahead.document_ids = await _named_scope(deps, ahead.question)
    searched = await search(deps, ahead.question, ahead.document_ids, ahead.set_ids)
    kept = [h for h, injected in zip(searched.hits, searched.injected, strict=True)
            if not injected]
    await deps.engine.prepare_inquiry(ahead.question, kept)
    return searched


async def _named_scope(deps: TurnDeps, question: str) -> tuple[UUID, ...]:
    """A new conversation has no documents in play, so the search covers the documents the
    question names ("under COBS"), as ``resolve_documents`` will decide."""
    if not may_name_documents(question):
        return ()
    library = await deps.documents.list(deps.tenant_id)
    ready = [d for d in library if d.status == DocStatus.READY]
    unheld = instrument_names.unheld(question, ready)
    return tuple(d.id for d in named_documents(instrument_names.without(question, unheld),
                                               library))


async def take_search(deps: TurnDeps, question: str, document_ids: Sequence[UUID],
                      set_ids: Sequence[UUID]) -> Searched:
    """The search started ahead when it was for this question and scope (known once it is
    done: it may have narrowed its scope to a named document), else a new one. One that
    failed is searched again, so its error (an invalid scope) surfaces here, in the node."""
    ahead = deps.ahead
    task = ahead.search if ahead is not None else None
    if ahead is not None and task is not None:
        ahead.search = None
        try:
            searched = await task
        except Exception:
            log.debug("the search started ahead failed; searching again", exc_info=True)
        else:
            if ahead.same_search(question, document_ids, set_ids):
                return searched
    return await search(deps, question, document_ids, set_ids)


async def take_intent(deps: TurnDeps, question: str) -> IntentGuess:
    ahead = deps.ahead
    if ahead is not None and ahead.intent is not None:
        task, ahead.intent = ahead.intent, None
        if ahead.question == question:
            return await task  # the engine turns a model failure into its fallback's guess
        await _cancel(task)
    return await deps.engine.classify_intent(question)


async def cancel(deps: TurnDeps) -> None:
    """Stop whatever was started ahead and not taken (and wait for it to stop, so the turn's
    connections are back before the turn ends)."""
    ahead, deps.ahead = deps.ahead, None
    if ahead is not None:
        await _cancel(ahead.search)
        await _cancel(ahead.intent)


async def _cancel(task: asyncio.Task[Any] | None) -> None:
    if task is None:
        return
    task.cancel()
    await asyncio.wait([task])  # never raises the task's own error
    if not task.cancelled() and task.exception() is not None:
        log.debug("work started ahead and not used failed: %s", task.exception())
