"""One failure-injection test per resilience rule (concept-capture spec §5.3, context spec
§4.3). Each turn still completes: the answer is untouched, failures are logged, and what can
still be captured is. Unreachable stores are the real adapters pointed at nothing; the
other failures are deliberately failing fakes."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from pathlib import Path

import pytest

from regintel.adapters.graph.falkordb_store import FalkorGraphStore
from regintel.adapters.postgres.context_repo import PostgresConversationContextStore
from regintel.adapters.postgres.database import Database
from regintel.concepts.capture import EnrichmentRequest
from regintel.concepts.extractor import SourceText
from regintel.domain.concepts import ConversationContext, ConversationIdentity
from regintel.errors import DependencyUnavailable
from regintel.ports.graph import GraphNode
from regintel.runtime.falkordb import EmbeddedFalkorDB
from regintel.runtime.stores import EmbeddedEndpoints
from tests.concepts.conftest import Build, Tenancy
from tests.concepts.turns import run_turn

CDD = {"concepts": [{"domain": "AML", "kind": "CDD", "jurisdiction": "ADGM",
                     "prefLabel": "Customer Due Diligence"}]}
CDD_ID = "concept:AML:CDD:ADGM"
SOURCE = SourceText("'Customer Due Diligence' means identifying and verifying a customer.",
                    title="ADGM AML Rulebook")


def _warned(caplog: pytest.LogCaptureFixture, phrase: str) -> bool:
    return any(phrase in r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING)


async def test_graph_down(build: Build, tenancy: Tenancy, server_dir: Path,
                          caplog: pytest.LogCaptureFixture) -> None:
    server = EmbeddedFalkorDB(server_dir / "graph", appendfsync="everysec")
    dead = FalkorGraphStore(graph_name="down",
                            unix_socket_path=str(await asyncio.to_thread(server.start)))
    await asyncio.to_thread(server.stop)  # a real graph server, gone
    services = build(store=dead)
    identity = await tenancy.conversation()
    with caplog.at_level(logging.WARNING):
        turn = await run_turn(services, identity, "What is Customer Due Diligence?",
                               sources=[SOURCE])
        aspect = await services.context_aspect([CDD_ID])
    assert turn.answer and turn.referenced == [] and aspect is None
    assert turn.context.activeNodeIds == []
    assert _warned(caplog, "concept skipped (DependencyUnavailable")
    await dead.close()


class _FailingContextStore:
    def __init__(self, inner: PostgresConversationContextStore, *, fail_load: bool,
                 fail_save: bool) -> None:
        self.inner, self.fail_load, self.fail_save = inner, fail_load, fail_save
        self.saved: list[ConversationContext] = []

    async def load(self, identity: ConversationIdentity) -> ConversationContext | None:
        if self.fail_load:
            raise DependencyUnavailable("context store down (injected)")
        return await self.inner.load(identity)

    async def save(self, identity: ConversationIdentity, ctx: ConversationContext) -> None:
        if self.fail_save:
            raise DependencyUnavailable("context store down (injected)")
        self.saved.append(ctx)
        await self.inner.save(identity, ctx)

    async def purge_inactive(self, *, older_than_days: int) -> int:
        return 0


async def test_context_store_down_on_load(build: Build, tenancy: Tenancy,
                                          caplog: pytest.LogCaptureFixture) -> None:
    unreachable = Database("postgresql://nobody@127.0.0.1:1/none", pool_size=1,
                           connect_timeout_s=1)
    services = build(context_store=PostgresConversationContextStore(unreachable))
    identity = await tenancy.conversation()
    with caplog.at_level(logging.WARNING):
        turn = await run_turn(services, identity, "What is CDD?", payload=CDD)
    assert turn.answer and turn.aspect is None  # loaded as EMPTY_CONTEXT
    assert turn.referenced == [CDD_ID]  # capture still ran
    assert _warned(caplog, "conversation context not loaded (DependencyUnavailable")
    assert _warned(caplog, "conversation context not saved (DependencyUnavailable")
    await unreachable.dispose()


async def test_context_store_down_on_save(build: Build, tenancy: Tenancy, database: Database,
                                          caplog: pytest.LogCaptureFixture) -> None:
    real = PostgresConversationContextStore(database)
    store = _FailingContextStore(real, fail_load=False, fail_save=True)
    services = build(context_store=store)
    identity = await tenancy.conversation()
    with caplog.at_level(logging.WARNING):
        turn = await run_turn(services, identity, "What is CDD?", payload=CDD)
    assert turn.answer and turn.referenced == [CDD_ID]
    assert turn.context.activeNodeIds == [CDD_ID]  # reported for this turn all the same
    assert await real.load(identity) is None  # but not stored
    assert _warned(caplog, "conversation context not saved")


@pytest.mark.parametrize("payload", [
    "not json at all {", b"\xff\xfe", None, 42, [], {"concept": []}, {"concepts": "CDD"},
    {"concepts": [{"domain": "AML"}]}, '{"concepts": [{"prefLabel": 7}]}',
])
async def test_malformed_payload_is_logged_and_skipped(
        build: Build, tenancy: Tenancy, payload: object,
        caplog: pytest.LogCaptureFixture) -> None:
    services = build()
    identity = await tenancy.conversation()
    with caplog.at_level(logging.WARNING):
        result = await services.handler.handle(payload, tenant_id=identity.tenant_id,
                                               conversation_id=identity.conversation_id)
    assert result.referencedNodeIds == []
    assert _warned(caplog, "capture_concepts: ") and _warned(caplog, "malformed")


async def test_one_bad_concept_does_not_lose_the_others(build: Build) -> None:
    services = build()
    result = await services.handler.handle({"concepts": [
        {"domain": "AML"},  # invalid
        {"domain": "AML", "kind": "X", "jurisdiction": "ADGM", "prefLabel": "a@b.com"},  # guard
        CDD["concepts"][0]]})
    assert result.referencedNodeIds == [CDD_ID] and result.failures == 1


async def test_enqueue_failure_never_blocks(build: Build, tenancy: Tenancy,
                                            caplog: pytest.LogCaptureFixture) -> None:
    async def broken(_request: EnrichmentRequest) -> None:
        raise DependencyUnavailable("queue down (injected)")

    services = build(enqueue=broken)
    identity = await tenancy.conversation()
    with caplog.at_level(logging.WARNING):
        turn = await run_turn(services, identity, "What is CDD?", payload=CDD)
    assert turn.referenced == [CDD_ID] and turn.context.activeNodeIds == [CDD_ID]
    assert _warned(caplog, "not enqueued (DependencyUnavailable")


class _UnresolvableStore(FalkorGraphStore):
    """The real store whose node look-up by id fails (as when the graph is restarting)."""

    async def get_nodes_by_keys(self, keys: Sequence[str]) -> list[GraphNode]:
        raise DependencyUnavailable("node resolution failed (injected)")


async def test_node_resolution_failure_in_the_aspect(
        build: Build, tenancy: Tenancy, graph: FalkorGraphStore, embedded: EmbeddedEndpoints,
        caplog: pytest.LogCaptureFixture) -> None:
    services = build()
    identity = await tenancy.conversation()
    first = await run_turn(services, identity, "What is CDD?", payload=CDD)
    assert first.context.activeNodeIds == [CDD_ID]
    assert embedded.graph_socket is not None
    failing = _UnresolvableStore(graph_name="x", unix_socket_path=str(embedded.graph_socket))
    failing._graph = graph._graph  # the live graph, for everything but the failing read
    broken = build(store=failing)
    with caplog.at_level(logging.WARNING):
        turn = await run_turn(broken, identity, "And EDD?", payload=CDD)
    assert turn.aspect is None and turn.answer
    assert turn.referenced == [CDD_ID]  # capture itself reads by key, not by id list
    assert _warned(caplog, "conversation context aspect omitted")
    await failing.close()
