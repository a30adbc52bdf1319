"""The concept graph through the chat, on both engines: a concept captured in turn 1 is
created once (and reused by another conversation), referenced by the response, kept in the
conversation's context and put in scope for turn 2's prompt; and each concept-side failure
leaves a normal answer."""

from __future__ import annotations

import logging
from typing import Any
from uuid import UUID

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from regintel.bench.llm_stub import StubBehaviour
from regintel.chat.deps import TurnDeps
from regintel.chat.service import ChatService
from regintel.concepts.context import CONTEXT_ASPECT_HEADER
from regintel.concepts.services import ConceptServices, build_concept_services
from regintel.container import Container
from regintel.domain.chat import ChatRequest, ChatResponse, Engine, EngineChoice
from regintel.domain.concepts import ConversationContext, ConversationIdentity
from regintel.errors import DependencyUnavailable
from tests.chat.conftest import Conversation, Corpus

QUESTION = "What is Customer Due Diligence under the AML Rules?"


async def _concept_nodes(services: ConceptServices, ids: list[str]) -> list[Any]:
    return [n for n in await services.client.get_nodes_by_ids(ids) if "Concept" in n.labels]


async def test_captured_concept_is_created_once_kept_in_scope_and_prompted(
        conversation: Conversation, chat: ChatService, container: Container, corpus: Corpus,
        behaviour: StubBehaviour) -> None:
    services = await container.concepts(corpus.tenant_id)  # the tenant's view of the graph
    first = await conversation.ask(QUESTION)
    assert first.referenced_nodes, first.answer
    concepts = await _concept_nodes(services, first.referenced_nodes)
    assert concepts
    assert first.context["active_node_ids"] == first.referenced_nodes
    stored = await services.context.load(ConversationIdentity(
        tenant_id=corpus.tenant_id, conversation_id=first.thread_id))
    assert set(first.referenced_nodes) <= set(stored.activeNodeIds)

    second = await conversation.ask("And who must carry it out?")
    assert "conversation_context" in str(second.context.get("aspects"))
    active = second.context["active_node_ids"]
    assert isinstance(active, list) and set(first.referenced_nodes) <= set(active)
    if second.engine is not Engine.OFFLINE:  # the paragraph reached the model's prompt
        system = behaviour.requests[-1]["messages"][0]["content"]
        assert CONTEXT_ASPECT_HEADER in system
        assert str(concepts[0].properties["prefLabel"]) in system

    # Another conversation capturing the same concept reuses the node: one node per label.
    other = await Conversation(chat, corpus.tenant_id).ask(QUESTION)
    assert set(first.referenced_nodes) & set(other.referenced_nodes)
    for node in concepts:
        same = await services.client.concepts_by_label([str(node.properties["prefLabel"])])
        assert [n.key for n in same] == [node.key]


class BrokenContextStore:
    def __init__(self, *, load: bool, save: bool) -> None:
        self.fail_load, self.fail_save = load, save

    async def load(self, identity: ConversationIdentity) -> ConversationContext | None:
        if self.fail_load:
            raise ConnectionError("context store down")
        return None

    async def save(self, identity: ConversationIdentity, ctx: ConversationContext) -> None:
        if self.fail_save:
            raise ConnectionError("context store down")

    async def purge_inactive(self, *, older_than_days: int) -> int:
        return 0


class DownGraph:
    """Every graph call fails the way the adapter reports an unreachable server."""

    def __getattr__(self, name: str) -> Any:
        async def fail(*_: object, **__: object) -> None:
            raise DependencyUnavailable("the graph store is unreachable")
        return fail


async def _failing_enqueue(*_: object, **__: object) -> None:
    raise ConnectionError("queue down")


def _broken(container: Container, failure: str) -> ConceptServices:
    store: Any = container.graph
    context_store: Any = BrokenContextStore(load=failure == "context_load",
                                            save=failure == "context_save")
    if failure == "graph_down":
        store = DownGraph()
    return build_concept_services(
        store, pii=None, context_store=context_store, settings=container.settings.concepts,
        shared_data_dir=container.settings.demo_data_dir,
        enqueue=_failing_enqueue if failure == "enqueue" else None)


@pytest.mark.parametrize("failure", ["graph_down", "context_load", "context_save", "enqueue"])
async def test_concept_failures_never_cost_the_answer(container: Container, corpus: Corpus,
                                                      failure: str) -> None:
    guard = await container.guard()
    broken = _broken(container, failure)

    async def deps(tenant_id: UUID, user_id: UUID | None, conversation_id: UUID,
                   engine: EngineChoice | None) -> TurnDeps:
        made = await container.turn_deps(guard, tenant_id, user_id, conversation_id, engine)
        made.concepts = broken
        return made

    chat = ChatService(checkpointer=InMemorySaver(), documents=container.documents,
                       conversations=container.conversations, deps=deps)
    response: ChatResponse = await chat.ask(corpus.tenant_id, ChatRequest(message=QUESTION))
    assert response.answer and response.citations
    if failure == "graph_down":
        assert response.referenced_nodes == []


async def test_malformed_capture_payload_is_skipped_and_the_answer_stands(
        llm_chat: ChatService, corpus: Corpus, behaviour: StubBehaviour) -> None:
    behaviour.failure, behaviour.failures_left = "bad_payload", 100
    response = await llm_chat.ask(corpus.tenant_id, ChatRequest(message=QUESTION))
    assert response.engine is Engine.LLM and response.answer and response.citations
    assert response.referenced_nodes == []


async def test_a_conversation_full_of_personal_data_leaves_none_in_the_graph(
        conversation: Conversation, container: Container,
        caplog: pytest.LogCaptureFixture) -> None:
    secrets = ["jane.doe@falconcrest.ae", "+971 50 123 4567", "Mr John Smith",
               "AE070331234567890123456", "48213-77"]
    with caplog.at_level(logging.WARNING):
        first = await conversation.ask(
            f"Mr John Smith ({secrets[0]}, {secrets[1]}) asks: what Customer Due Diligence "
            f"applies to client {secrets[4]} with IBAN {secrets[3]}?")
        await conversation.ask("Does Mr John Smith need Enhanced Due Diligence too?")
    assert first.answer
    store: Any = container.graph
    nodes, edges = await store.dump()
    blob = "\n".join(
        [str(v) for n in nodes for v in [n.key, *n.labels, *n.properties.values()]]
        + [str(v) for e in edges for v in [e.src_key, e.dst_key, *e.properties.values()]]
    ).lower()
    for secret in [*secrets, str(first.thread_id), "smith", "jane"]:
        assert secret.lower() not in blob, secret
