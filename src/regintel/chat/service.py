"""Chat as a service: checks a request, finds or starts its conversation, runs the graph for
one turn (or resumes a pending question), and streams events — ``status`` per node, ``text``
deltas, then ``meta`` (the full ChatResponse). The ``text`` deltas spell the final answer; a
``status`` event with ``reset: true`` withdraws what was sent so far (a model failed half-way
and the answer is sent again), see ``chat.streaming``."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal
from uuid import UUID, uuid4

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.types import Command

from regintel.chat import concepts, pasted, prefetch
from regintel.chat.checkpoints import ResilientSaver, turn_failures
from regintel.chat.deps import TurnDeps
from regintel.chat.graph import build_graph
from regintel.chat.nodes.respond import build_response
from regintel.chat.nodes.triage import screen
from regintel.chat.state import ChatState
from regintel.chat.titles import clean_title, distinct_title
from regintel.domain.chat import (
    MAX_MESSAGE_CHARS,
    Action,
    ChatRequest,
    ChatResponse,
    EngineChoice,
    NeedsInput,
)
from regintel.domain.conversations import Conversation
from regintel.domain.documents import DocStatus
from regintel.errors import InvalidRequest
from regintel.ontology.service import OntologyService
from regintel.ports.conversations import ConversationStore
from regintel.ports.library import DocumentStore

log = logging.getLogger(__name__)
EventKind = Literal["status", "text", "meta", "error"]


@dataclass(frozen=True)
class ChatEvent:
    kind: EventKind
    data: Any


# (tenant, user, conversation, the conversation's engine: None for the default) → the turn's
# dependencies, its engine among them.
DepsFactory = Callable[[UUID, UUID | None, UUID, EngineChoice | None], Awaitable[TurnDeps]]


class ChatService:
    def __init__(self, *, checkpointer: BaseCheckpointSaver[Any], documents: DocumentStore,
                 conversations: ConversationStore, deps: DepsFactory,
                 max_documents: int = 5, projects: OntologyService | None = None) -> None:
        self._graph = build_graph(ResilientSaver(checkpointer))
        self._documents = documents
        self._conversations = conversations
        self._deps = deps
        self._max_documents = max_documents
        self._projects = projects

    async def ask(self, tenant_id: UUID, request: ChatRequest, *,
                  user_id: UUID | None = None) -> ChatResponse:
        final: ChatResponse | None = None
        async for event in self.stream(tenant_id, request, user_id=user_id):
            if event.kind == "meta":
                final = event.data
        assert final is not None
        return final

    async def stream(self, tenant_id: UUID, request: ChatRequest, *,
                     user_id: UUID | None = None) -> AsyncIterator[ChatEvent]:
        await self._check(tenant_id, request)
        request = pasted.separate(request)  # "Check this email …: <the email>"
        # The thread's engine decides the turn's engine, which the work started ahead uses.
        existing = None if request.thread_id is None else await self._conversations.get(
            tenant_id, request.thread_id)  # NotFound for another tenant's thread
        deps = await self._deps(tenant_id, user_id, request.thread_id or uuid4(),
                                existing.engine if existing is not None else None)
        # Personal data is masked before anything is stored: the conversation title, the
        # checkpoint of the run's input, the messages and the memory all see the masked text.
        request, screened = await self._screen(deps, request)
        if _plain_question(request, screened):
            await prefetch.start(deps, request.message.strip(), request.tagged_doc_ids,
                                 request.tagged_set_ids, intent=request.action is None,
                                 new_thread=request.thread_id is None)
        failures: list[str] = []
        token = turn_failures.set(failures)
        try:
            conversation = await self._conversation(tenant_id, request, user_id, existing)
            conversation_id = conversation.id
            deps.conversation_id = conversation_id
            deps.project_id = conversation.project_id
            concepts.begin_soon(deps)  # read while memory and triage run
            config: RunnableConfig = {
                "configurable": {"thread_id": f"{tenant_id}:{conversation_id}"}}
            run_input = await self._input(config, request, screened)
            interrupted: NeedsInput | None = None
            # Checkpointed when the run ends or stops for a question, not after every node: a
            # server killed mid-turn resumes the thread from its last whole turn (or pending
            # question), and a turn spends no ~40 ms of CPU writing twenty in-flight states.
            async for mode, item in self._graph.astream(
                    run_input, config, context=deps, stream_mode=["updates", "custom"],
                    durability="exit"):
                chunk: dict[str, Any] = item  # type: ignore[assignment]
                if mode == "custom":
                    yield _custom_event(chunk)
                    continue
                for node, value in chunk.items():
                    if node == "__interrupt__":
                        interrupted = NeedsInput.model_validate(value[0].value)
                    else:
                        yield ChatEvent("status", {"node": node})
            state: ChatState = (await self._graph.aget_state(config)).values  # type: ignore[assignment]
            if interrupted is not None:
                response = build_response(state, conversation_id, interrupted)
                yield ChatEvent("text", response.answer)
            else:
                response = ChatResponse.model_validate(state["response"])
            if failures or deps.degraded:
                response.context["degraded"] = sorted(
                    {*response.context.get("degraded", []),  # type: ignore[misc]
                     *failures, *deps.degraded})
            response.context["timings_ms"] = {k: round(v * 1000, 1)
                                              for k, v in deps.timings.items()}
            yield ChatEvent("meta", response)
        finally:
            turn_failures.reset(token)
            await prefetch.cancel(deps)  # the turn took another path
            if deps.concept_loading is not None and not deps.concept_loading.done():
                deps.concept_loading.cancel()  # a turn triage answered never needed them

    @staticmethod
    async def _screen(deps: TurnDeps,
                      request: ChatRequest) -> tuple[ChatRequest, dict[str, Any] | None]:
        if not request.message.strip():
            return request, None  # an answer to a pending question: nothing to screen
        with deps.timed("guardrails"):
            verdict = await asyncio.to_thread(deps.guard.check, request.message)
            source = request.source_text
            if source:
                found = await asyncio.to_thread(deps.guard.find_pii, source)
                for kind, start, end in sorted(found, key=lambda f: -f[1]):
                    source = f"{source[:start]}<{kind}>{source[end:]}"
        screened = screen(verdict, masked=verdict.masked_text != request.message
                          or source != request.source_text)
        masked = request.model_copy(update={"message": verdict.masked_text,
                                            "source_text": source})
        return masked, screened

    async def _input(self, config: RunnableConfig, request: ChatRequest,
                     screened: dict[str, Any] | None) -> Any:
        """Resume the pending question with the user's answer, or start a new turn."""
        if request.answer is not None:
            snapshot = await self._graph.aget_state(config)
            if snapshot.interrupts:
                return Command(resume=request.answer)
            if not request.message.strip():
                raise InvalidRequest("there is no pending question to answer on this thread",
                                     hint="ask a question instead")
        return {"request": request.model_dump(mode="json"), "screened": screened}

    async def _check(self, tenant_id: UUID, request: ChatRequest) -> None:
        message = request.message.strip()
        if not message and request.answer is None:
            raise InvalidRequest("the question is empty", hint="type a question")
        if len(message) > MAX_MESSAGE_CHARS:
            raise InvalidRequest(
                f"the question is {len(message):,} characters long; the limit is "
                f"{MAX_MESSAGE_CHARS:,}", hint="shorten it, or upload long text as a document")
        if len(request.tagged_doc_ids) > self._max_documents:
            raise InvalidRequest(
                f"{len(request.tagged_doc_ids)} documents are tagged; one question can use at "
                f"most {self._max_documents}", hint="remove some tags, or tag a set instead")
        for doc_id in request.tagged_doc_ids:
            document = await self._documents.get(tenant_id, doc_id)  # NotFound → clear message
            if document.status != DocStatus.READY:
                raise InvalidRequest(
                    f"'{document.title}' is {document.status.value}, not ready to be searched",
                    hint="wait until its ingestion finishes" if document.status in (
                        DocStatus.QUEUED, DocStatus.PROCESSING) else "upload it again")

    async def _conversation(self, tenant_id: UUID, request: ChatRequest,
                            user_id: UUID | None, existing: Conversation | None) -> Conversation:
        if existing is not None:
            conversation = existing
            if not conversation.title.strip() and request.message.strip():
                # A conversation created empty takes its title from its first (masked) question.
                title = await self._title(tenant_id, user_id, request.message)
                await self._conversations.rename(tenant_id, conversation.id, title)
                conversation = conversation.model_copy(update={"title": title})
            return conversation
        if request.project_id is not None and self._projects is not None:
            await self._projects.project(tenant_id, request.project_id)  # NotFound: not ours
        return await self._conversations.create(
            tenant_id, user_id=user_id, title=await self._title(tenant_id, user_id,
                                                                 request.message),
            project_id=request.project_id)

    async def _title(self, tenant_id: UUID, user_id: UUID | None, message: str) -> str:
        taken = await self._conversations.list_conversations(tenant_id, user_id=user_id)
        return distinct_title(clean_title(message), (c.title for c in taken))


def _plain_question(request: ChatRequest, screened: dict[str, Any] | None) -> bool:
    """A new question that may well be an inquiry: its first search can start now."""
    return (screened is not None and not screened["blocked"] and request.answer is None
            and request.action in (None, Action.INQUIRE) and not request.source_text)


def _custom_event(chunk: dict[str, Any]) -> ChatEvent:
    """A node's own event: answer text, a step starting ("Searching 3 documents…"), or
    {"reset": true} - what was streamed is withdrawn and the answer follows anew."""
    if "text" in chunk:
        return ChatEvent("text", chunk["text"])
    if "step" in chunk:
        return ChatEvent("status", {"node": chunk["node"], "detail": chunk["step"]})
    return ChatEvent("status", {"node": "compose", "reset": True})
