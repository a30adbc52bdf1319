"""The tenant wall in the concept graph (issue 34, findings 1 and 2), through the real routes
on the embedded FalkorDB: a term one organisation's private policy defines, captured by its
chat, is read back by that organisation and by no other — not through the overview, a
search, a node, the change feed or the live stream — and never reaches the shared graph; and
a definition another organisation's document gives never enters this organisation's view or
its conversation's active concepts."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any
from uuid import UUID

import httpx
from fastapi import FastAPI

from regintel.concepts.tenant_graph import TenantGraphStore, clear_private_from_shared
from regintel.container import Container
from regintel.domain.concepts import CONCEPT, ConversationIdentity
from regintel.ports.graph import now_ms
from tests.api.conftest import User, ingest, sse_events, upload
from tests.api.test_graph_api import _stream_tasks, http_base  # noqa: F401 (a fixture)

PRIVATE_POLICY = """Org A Counterparty Exposure Policy

1. Definitions

"Nightjar Exposure" means the private exposure of Org A to counterparty Nightjar Holdings.

2. Limits

2.1 The Treasury Committee must review the Nightjar Exposure every month.
"""
POISON = """Org B Customer Policy

1. Definitions

"Enhanced Customer Due Diligence" means a courtesy phone call to the customer.

2. Customers

2.1 Staff must carry out Enhanced Customer Due Diligence on every new customer.
"""
HONEST = """Customer Onboarding Standard

1. Customers

1.1 Staff must carry out Enhanced Customer Due Diligence on every high-risk customer,
including verifying the source of funds and obtaining senior management approval.
"""


async def _document(user: User, container: Container, text: str, title: str) -> str:
    response = await upload(user, text.encode(), f"{title.lower().replace(' ', '-')}.txt",
                            title=title)
    assert response.status_code == 201, response.text
    document_id: str = response.json()["document"]["id"]
    assert (await ingest(container, user, document_id))["status"] == "ready"
    return document_id


async def _ask(user: User, question: str, document_id: str) -> dict[str, Any]:
    response = await user.client.post("/api/chat", json={
        "message": question, "tagged_doc_ids": [document_id]})
    assert response.status_code == 200, response.text
    kind, meta = sse_events(response.text)[-1]
    assert kind == "meta", meta
    return dict(meta)


def _mentions(body: object, word: str) -> bool:
    return word in json.dumps(body).lower()


async def _stream_patches(user: User, base: str, since: int, seconds: float) -> list[Any]:
    """Every patch the live stream sends ``user`` from ``since`` within ``seconds``."""
    patches: list[Any] = []
    async with httpx.AsyncClient(base_url=base, cookies=dict(user.client.cookies),
                                 timeout=30) as client, \
            client.stream("GET", "/api/graph/stream", params={"since": since},
                          headers={"Accept": "text/event-stream"}) as response:
        assert response.status_code == 200
        lines: AsyncIterator[str] = response.aiter_lines()
        deadline = time.monotonic() + seconds
        kind, data = "", ""
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = await asyncio.wait_for(anext(lines), left)
            except TimeoutError:
                break
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                data += line[6:]
            elif line == "" and kind:
                if kind == "patch":
                    patches.append(json.loads(data))
                kind, data = "", ""
    # The client left: the server's poller for it ends (no stream outlives its test).
    for _ in range(100):
        if not _stream_tasks():
            break
        await asyncio.sleep(0.05)
    return patches


async def test_a_private_definition_never_reaches_another_tenant(
        api_app: FastAPI, container: Container, alice: User, mallory: User,
        http_base: str) -> None:  # noqa: F811
    cursor = now_ms()
    policy = await _document(alice, container, PRIVATE_POLICY, "Exposure Policy")
    meta = await _ask(alice, 'What does "Nightjar Exposure" mean in our policy?', policy)

    # Alice's organisation captured the term and reads it back (the test can fail).
    mine = (await alice.client.get("/api/graph", params={"q": "nightjar"})).json()
    assert mine["nodes"], meta.get("referenced_nodes")
    key = mine["nodes"][0]["id"]
    assert key in meta["referenced_nodes"]
    assert "Nightjar Holdings" in (mine["nodes"][0]["definition"] or "")
    assert (await alice.client.get(f"/api/graph/nodes/{key}")).status_code == 200
    assert any(p["id"] == key for p in (await alice.client.get(
        "/api/graph/changes", params={"since": cursor})).json()["data"])

    # Mallory's organisation reads none of it, by any route.
    theirs = (await mallory.client.get("/api/graph", params={"q": "nightjar"})).json()
    assert theirs["nodes"] == [] and theirs["total"] == 0
    overview = (await mallory.client.get("/api/graph", params={"limit": 1000})).json()
    assert not _mentions(overview, "nightjar")
    assert (await mallory.client.get(f"/api/graph/nodes/{key}")).status_code == 404
    assert (await mallory.client.get("/api/graph", params={"focus": key})).status_code == 404
    changes = (await mallory.client.get("/api/graph/changes", params={"since": cursor})).json()
    assert not _mentions(changes, "nightjar")
    streamed = await _stream_patches(mallory, http_base, cursor, seconds=4.0)
    assert not _mentions(streamed, "nightjar")
    # Alice's own stream carries it (the stream reads the tenant's graph at all).
    assert _mentions(await _stream_patches(alice, http_base, cursor, seconds=4.0), "nightjar")

    # Nor does the shared graph itself hold it: it is written to Alice's graph only.
    shared = await container.graph.find_nodes_with_any(CONCEPT, "labelsNorm",
                                                        ["nightjar exposure"])
    assert shared == []
    assert not _mentions([n.properties for n in await container.graph.get_nodes_by_keys(
        [key])], "nightjar")


async def test_another_tenants_definition_never_enters_my_view_or_context(
        api_app: FastAPI, container: Container, alice: User, mallory: User) -> None:
    poison = await _document(mallory, container, POISON, "Customer Policy")
    planted = await _ask(mallory, 'What does "Enhanced Customer Due Diligence" mean?', poison)
    assert planted["referenced_nodes"]
    theirs = [(await mallory.client.get(f"/api/graph/nodes/{k}")).json()
              for k in planted["referenced_nodes"]]
    assert any(_mentions(n, "courtesy phone call") for n in theirs)  # mallory's own view

    honest = await _document(alice, container, HONEST, "Onboarding Standard")
    meta = await _ask(alice, "What must staff do for Enhanced Customer Due Diligence?", honest)
    for key in planted["referenced_nodes"]:
        seen = await alice.client.get(f"/api/graph/nodes/{key}")
        assert seen.status_code == 404 or not _mentions(seen.json(), "courtesy")
    for key in meta["referenced_nodes"]:
        node = (await alice.client.get(f"/api/graph/nodes/{key}")).json()
        assert not _mentions(node, "courtesy")
    search = (await alice.client.get("/api/graph", params={"q": "due diligence"})).json()
    assert not _mentions(search, "courtesy")
    # The conversation's active concepts, as the next turn loads them.
    services = await container.concepts(alice.tenant_id)
    identity = ConversationIdentity(tenant_id=alice.tenant_id,
                                    conversation_id=UUID(meta["thread_id"]),
                                    user_id=alice.user_id)
    start = await services.begin_turn(identity)
    assert start.context.activeNodeIds == meta["referenced_nodes"]
    assert not _mentions(start.aspect or "", "courtesy")


async def test_a_tenant_cannot_change_or_delete_a_shared_node(container: Container,
                                                              alice: User) -> None:
    shared = (await container.concepts()).writer
    key = "concept:AML:WALL_PROBE_SHARED:ADGM"
    await shared.upsert_node(CONCEPT, key, {"prefLabel": "wall probe shared", "domain": "AML",
                                            "kind": "WALL_PROBE_SHARED",
                                            "jurisdiction": "ADGM",
                                            "definition": "The public definition."})
    view = await container.concepts(alice.tenant_id)
    assert isinstance(view.client.store, TenantGraphStore)
    assert not await view.writer.delete_node(CONCEPT, key)  # not the tenant's to delete
    await view.writer.upsert_node(CONCEPT, key, {"definition": "A private rewrite."})
    await view.writer.append_unique(CONCEPT, key, "altLabels", ["alice alias"])

    public = (await container.graph.get_nodes(CONCEPT, [key]))[0].properties
    assert public["definition"] == "The public definition."
    assert not _mentions(public, "alice alias")
    seen = (await view.client.get_nodes_by_ids([key]))[0].properties
    assert seen["definition"] == "The public definition."  # curated text wins, for all
    assert _mentions(seen["altLabels"], "alice alias")  # the tenant's own addition, for it
    assert await view.writer.delete_node(CONCEPT, key)  # its own copy only
    assert (await container.graph.get_nodes(CONCEPT, [key]))[0].properties == public


async def test_an_upgrade_moves_captured_concepts_out_of_the_shared_graph(
        container: Container) -> None:
    """Earlier versions captured chats into the shared graph: the start-up step removes
    them (idempotently) and leaves public knowledge alone."""
    writer = (await container.concepts()).writer
    leaked = "concept:AML:OLD_PRIVATE_CAPTURE:ADGM"
    public = "concept:AML:PUBLIC_IMPORT_KEPT:ADGM"
    await writer.upsert_node(CONCEPT, leaked, {"prefLabel": "old private capture",
                                               "source": "capture"})
    await writer.upsert_node(CONCEPT, public, {"prefLabel": "public import kept",
                                               "source": "skos"})
    assert await clear_private_from_shared(container.graph) >= 1
    assert await container.graph.get_nodes(CONCEPT, [leaked]) == []
    assert await container.graph.get_nodes(CONCEPT, [public])
    assert await clear_private_from_shared(container.graph) == 0
