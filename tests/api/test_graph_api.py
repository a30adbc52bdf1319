"""The concept graph over HTTP, on the real embedded FalkorDB seeded with the GDPR's Article 4
definitions: the overview, label search, a focused neighbourhood, a node with its
neighbours, the change patches, and the SSE stream served by a real HTTP server (a write
through the write service after subscribing arrives as a patch; the client leaving stops the
stream's poller). The graph is public knowledge: every tenant reads the same nodes, and ids
of tenant data are never graph nodes."""

from __future__ import annotations

import asyncio
import json
import secrets
import socket
import string
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi import FastAPI

from regintel.api.routes.graph import PatchStream
from regintel.concepts.services import ConceptServices
from regintel.container import Container
from tests.api.conftest import User

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
PERSONAL_DATA = "concept:DATA_PROTECTION:PERSONAL_DATA:EU"
DEFINITIONS = "section:gdpr:art-4"


@pytest.fixture(scope="module")
async def services(api_app: FastAPI) -> ConceptServices:
    container: Container = api_app.state.container
    found = await container.concepts()
    await found.seeder.seed(SHARED, only=("gdpr",))
    return found


def _probe_key() -> tuple[str, str]:
    # Letters only: the ingress guard refuses anything shaped like an id (hex, digits).
    word = "".join(secrets.choice(string.ascii_uppercase) for _ in range(10))
    return f"concept:AML:STREAM_PROBE_{word}:ADGM", f"stream probe {word.lower()}"


async def _write_probe(services: ConceptServices, key: str, label: str) -> None:
    await services.writer.upsert_node("Concept", key, {
        "prefLabel": label, "domain": "AML", "kind": key.split(":")[2], "jurisdiction": "ADGM",
        "definition": "A concept written by the stream test."}, extra_labels=("AmlConcept",))


async def test_overview_search_focus_and_node(services: ConceptServices, alice: User) -> None:
    overview = (await alice.client.get("/api/graph", params={"limit": 300})).json()
    ids = {n["id"] for n in overview["nodes"]}
    assert PERSONAL_DATA in ids and overview["count"] == len(overview["nodes"]) <= 300
    assert all(n["kind"] == "concept" for n in overview["nodes"])
    assert overview["cursor"] > 0 and overview["total"] >= 26
    assert all(e["source"] in ids and e["target"] in ids for e in overview["edges"])
    assert any(e["rel"] in ("BROADER", "NARROWER") for e in overview["edges"])
    small = (await alice.client.get("/api/graph", params={"limit": 5})).json()
    assert small["count"] == 5 and small["truncated"]

    found = (await alice.client.get("/api/graph", params={"q": "Personal-DATA"})).json()
    assert found["nodes"][0]["id"] == PERSONAL_DATA
    assert found["nodes"][0]["prefLabel"] == "personal data"
    sections = (await alice.client.get("/api/graph", params={"q": "definitions",
                                                             "sections": True})).json()
    assert DEFINITIONS in {n["id"] for n in sections["nodes"]}

    focus = (await alice.client.get("/api/graph", params={
        "focus": PERSONAL_DATA, "depth": 1, "limit": 40})).json()
    assert focus["focus"] == PERSONAL_DATA and focus["depth"][PERSONAL_DATA] == 0
    assert focus["depth"][DEFINITIONS] == 1 and len(focus["nodes"]) <= 40
    kinds = {n["kind"] for n in focus["nodes"]}
    assert {"concept", "section"} <= kinds

    detail = (await alice.client.get(f"/api/graph/nodes/{PERSONAL_DATA}")).json()
    node = detail["node"]
    assert node["label"] == "personal data" and node["definition"]
    assert node["jurisdiction"] == "EU" and node["sourceUrls"]
    around = {(n["edge"]["rel"], n["direction"], n["node"]["id"]) for n in detail["neighbours"]}
    assert ("DEFINED_IN", "out", DEFINITIONS) in around
    assert detail["count"] == len(detail["neighbours"])

    assert (await alice.client.get("/api/graph/nodes/concept:NOPE:NOPE:EU")).status_code == 404
    missing = await alice.client.get("/api/graph", params={"focus": "concept:NOPE:NOPE:EU"})
    assert missing.status_code == 404
    assert missing.headers["content-type"] == "application/problem+json"


async def test_the_graph_needs_a_session(anon: httpx.AsyncClient) -> None:
    for path in ("/api/graph", f"/api/graph/nodes/{PERSONAL_DATA}", "/api/graph/changes"):
        assert (await anon.get(path)).status_code == 401
    stream = await anon.get("/api/graph/stream", headers={"Accept": "text/event-stream"})
    assert stream.status_code == 401


async def test_every_tenant_reads_the_same_public_graph_and_no_tenant_ids(
        services: ConceptServices, alice: User, mallory: User) -> None:
    mine = (await alice.client.get(f"/api/graph/nodes/{PERSONAL_DATA}")).json()
    theirs = (await mallory.client.get(f"/api/graph/nodes/{PERSONAL_DATA}")).json()
    assert mine == theirs
    # Ids of alice's tenant data are not graph nodes: mallory (or alice) finds nothing there.
    project = (await alice.client.post("/api/projects", json={"name": "Private"})).json()
    conversation = (await alice.client.post("/api/conversations", json={"title": "t"})).json()
    for ident in (project["id"], conversation["id"], str(alice.tenant_id), str(alice.user_id)):
        for user in (mallory, alice):
            assert (await user.client.get(f"/api/graph/nodes/{ident}")).status_code == 404
            assert (await user.client.get("/api/graph",
                                          params={"focus": ident})).status_code == 404


async def test_changes_since_a_cursor(services: ConceptServices, alice: User) -> None:
    cursor = (await alice.client.get("/api/graph", params={"limit": 1})).json()["cursor"]
    key, label = _probe_key()
    await _write_probe(services, key, label)
    changes = (await alice.client.get("/api/graph/changes", params={"since": cursor})).json()
    added = [p for p in changes["data"] if p["id"] == key]
    assert added and added[0]["op"] == "add" and added[0]["kind"] == "node"
    assert changes["cursor"] >= added[0]["at"] >= cursor


async def test_the_stream_refuses_clients_that_do_not_accept_events(alice: User) -> None:
    response = await alice.client.get("/api/graph/stream")
    assert response.status_code == 406
    assert response.headers["content-type"] == "application/problem+json"


@pytest.fixture
async def http_base(api_app: FastAPI) -> AsyncIterator[str]:
    """The same app over real HTTP (its lifespan already ran), so a streamed response can be
    read as it is produced and the client can really go away."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(api_app, lifespan="off", log_level="warning",
                                           http="h11", ws="none"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    for _ in range(1500):
        if server.started:
            break
        await asyncio.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    await asyncio.wait_for(task, 30)
    sock.close()


def _stream_tasks() -> list[asyncio.Task[Any]]:
    return [t for t in asyncio.all_tasks() if t.get_name() == PatchStream.TASK_NAME
            and not t.done()]


async def _next_event(lines: AsyncIterator[str], deadline: float) -> tuple[str, Any]:
    kind, data = "", ""
    while time.monotonic() < deadline:
        line = await asyncio.wait_for(anext(lines), max(0.1, deadline - time.monotonic()))
        if line.startswith("event: "):
            kind = line[7:]
        elif line.startswith("data: "):
            data += line[6:]
        elif line == "" and kind:
            return kind, json.loads(data)
    raise TimeoutError("no event in time")


async def test_a_write_after_subscribing_arrives_as_a_patch_then_the_client_leaves(
        services: ConceptServices, alice: User, http_base: str) -> None:
    key, label = _probe_key()
    cookies = dict(alice.client.cookies)
    async with httpx.AsyncClient(base_url=http_base, cookies=cookies, timeout=30) as client, \
            client.stream("GET", "/api/graph/stream",
                          headers={"Accept": "text/event-stream"}) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        lines = response.aiter_lines()
        deadline = time.monotonic() + 30
        assert (await _next_event(lines, deadline))[0] == "ready"
        assert len(_stream_tasks()) == 1  # the poller runs while someone listens
        await _write_probe(services, key, label)
        while True:
            kind, patch = await _next_event(lines, deadline)
            assert kind == "patch"
            if patch["id"] == key:
                break
        assert patch["op"] == "add" and patch["kind"] == "node"
        assert patch["properties"]["prefLabel"] == label and "AmlConcept" in patch["labels"]
    # The client went away: the server stops polling the graph for it.
    for _ in range(100):
        if not _stream_tasks():
            break
        await asyncio.sleep(0.05)
    assert not _stream_tasks()


async def test_a_reconnection_resumes_from_the_last_event_id(
        services: ConceptServices, alice: User, http_base: str) -> None:
    before = int(time.time() * 1000)
    key, label = _probe_key()
    await _write_probe(services, key, label)
    async with httpx.AsyncClient(base_url=http_base, cookies=dict(alice.client.cookies),
                                 timeout=30) as client, \
            client.stream("GET", "/api/graph/stream", headers={
                "Accept": "text/event-stream", "Last-Event-ID": str(before)}) as response:
        lines = response.aiter_lines()
        deadline = time.monotonic() + 30
        kind, ready = await _next_event(lines, deadline)
        assert kind == "ready" and ready["since"] == before
        while (event := await _next_event(lines, deadline))[1].get("id") != key:
            pass
        assert event[0] == "patch"


async def test_a_cursor_older_than_the_kept_deletions_is_told_to_reload(
        services: ConceptServices, alice: User, http_base: str) -> None:
    # Purged up to epoch millisecond 1: nothing real is forgotten, and only a cursor of 0
    # (the beginning of time) is now too old.
    await services.changes.store.purge_tombstones(1)
    gone = await alice.client.get("/api/graph/changes", params={"since": 0})
    assert gone.status_code == 410
    problem = gone.json()
    assert problem["code"] == "resync_required" and "GET /api/graph" in problem["hint"]
    fresh = await alice.client.get("/api/graph/changes", params={"since": 1})
    assert fresh.status_code == 200
    cookies = dict(alice.client.cookies)
    async with httpx.AsyncClient(base_url=http_base, cookies=cookies, timeout=30) as client, \
            client.stream("GET", "/api/graph/stream", params={"since": 0},
                          headers={"Accept": "text/event-stream"}) as response:
        lines = response.aiter_lines()
        deadline = time.monotonic() + 30
        assert (await _next_event(lines, deadline))[0] == "ready"
        kind, body = await _next_event(lines, deadline)
        assert kind == "resync" and body["status"] == 410
