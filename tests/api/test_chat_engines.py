"""A conversation chooses its engine (issue 37): the engines a deployment offers, a
conversation's `engine` on create and update, refused when not offered, and its turns on that
engine: a conversation set to offline stays offline while a model is configured (the scripted
stub model server stands in for the cloud endpoint, and sees no request from it), and one on a
local model that cannot be set up is answered offline and says so."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from pydantic import SecretStr

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.api.app import create_app
from regintel.bench.llm_stub import StubBehaviour, StubServer
from regintel.container import Container
from regintel.settings import LlmModel, LlmSettings, LocalModelSettings, Settings
from tests.api.conftest import POLICY_TEXT, User, ingest, sign_up, sse_events, upload

QUESTION = "What must staff do about a suspicious transaction?"


@pytest.fixture(scope="module")
def stub() -> Iterator[StubServer]:
    with StubServer() as server:
        yield server


@pytest.fixture(scope="module")
async def cloud_app(api_settings: Settings, embedder: LocalEmbedder, stub: StubServer,
                    tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[FastAPI]:
    """The API with a model endpoint configured (the stub): the cloud engine is the
    default, the offline engine offered beside it, and a local model configured whose file
    is not a model (offered, as configured; it fails when a turn first needs it)."""
    broken = tmp_path_factory.mktemp("models") / "broken-model.gguf"
    broken.write_bytes(b"not a GGUF file")
    llm = LlmSettings(base_url=stub.base_url, api_key=SecretStr("sk-test"), timeout_s=5.0,
                      models={"small": LlmModel(name="stub-small"),
                              "large": LlmModel(name="stub-large")},
                      local=LocalModelSettings(model=str(broken)))
    application = create_app(api_settings.model_copy(update={"llm": llm}), run_worker=False,
                             embedder=embedder)
    async with application.router.lifespan_context(application):
        yield application


@pytest.fixture
def behaviour(stub: StubServer) -> StubBehaviour:
    stub.behaviour = StubBehaviour()
    return stub.behaviour


@pytest.fixture
async def carol(cloud_app: FastAPI) -> AsyncIterator[User]:
    user = await sign_up(cloud_app)
    yield user
    await user.client.aclose()


async def _document(user: User, container: Container) -> str:
    response = await upload(user, POLICY_TEXT.encode(), "aml.txt", title="AML Policy")
    assert response.status_code == 201, response.text
    document = await ingest(container, user, response.json()["document"]["id"])
    assert document["status"] == "ready"
    return str(document["id"])


async def _turn(user: User, thread: str, document: str) -> dict[str, Any]:
    response = await user.client.post("/api/chat", json={
        "message": QUESTION, "thread_id": thread, "tagged_doc_ids": [document]})
    assert response.status_code == 200, response.text
    kind, meta = sse_events(response.text)[-1]
    assert kind == "meta"
    assert meta["answer"] and meta["citations"]
    return dict(meta)


async def test_the_engines_offered_with_a_model_configured(carol: User) -> None:
    listed = (await carol.client.get("/api/chat/engines")).json()
    assert listed["count"] == 3
    assert [(e["id"], e["label"], e["model"], e["default"]) for e in listed["data"]] == [
        ("offline", "Offline engine", None, False),
        ("local", "Local model · broken-model", "broken-model", False),
        ("cloud", "Cloud model · stub-small", "stub-small", True)]


async def test_a_conversation_set_to_offline_is_answered_offline_while_a_model_is_configured(
        cloud_app: FastAPI, carol: User, behaviour: StubBehaviour) -> None:
    container: Container = cloud_app.state.container
    document = await _document(carol, container)

    created = await carol.client.post("/api/conversations", json={"engine": "offline"})
    assert created.status_code == 201, created.text
    offline = created.json()
    assert offline["engine"] == "offline"
    meta = await _turn(carol, offline["id"], document)
    assert meta["engine"] == "offline" and "models" not in meta["context"]
    assert "degraded" not in meta["context"]
    assert behaviour.requests == []  # not one call reached the model

    default = (await carol.client.post("/api/conversations", json={})).json()
    assert default["engine"] is None  # the deployment's default: the model
    meta = await _turn(carol, default["id"], document)
    assert meta["engine"] in ("llm", "llm+fallback") and meta["context"]["models"]
    assert behaviour.requests

    # Moved to the model, the offline conversation's next turn is the model's; back to the
    # default (null), still the model's.
    behaviour.requests.clear()
    moved = await carol.client.patch(f"/api/conversations/{offline['id']}",
                                     json={"engine": "cloud"})
    assert moved.status_code == 200 and moved.json()["engine"] == "cloud"
    assert moved.json()["title"]  # a change of engine keeps the title
    meta = await _turn(carol, offline["id"], document)
    assert meta["engine"] in ("llm", "llm+fallback") and behaviour.requests
    reset = await carol.client.patch(f"/api/conversations/{offline['id']}",
                                     json={"engine": None})
    assert reset.status_code == 200 and reset.json()["engine"] is None
    listed = (await carol.client.get("/api/conversations")).json()["data"]
    assert {c["id"]: c["engine"] for c in listed} == {offline["id"]: None,
                                                      default["id"]: None}


async def test_a_local_model_that_cannot_be_set_up_answers_offline_and_says_so(
        cloud_app: FastAPI, carol: User, behaviour: StubBehaviour) -> None:
    container: Container = cloud_app.state.container
    document = await _document(carol, container)
    local = (await carol.client.post("/api/conversations", json={"engine": "local"})).json()
    assert local["engine"] == "local"
    for _ in range(2):  # and again on the next turn: the failure is not kept as a success
        meta = await _turn(carol, local["id"], document)
        assert meta["engine"] == "offline" and meta["context"]["degraded"] == ["engine"]
    assert behaviour.requests == []  # nor did it reach for the cloud model instead
    assert container.llm_status() == "idle"  # offered, never started


async def test_an_engine_the_deployment_does_not_offer_is_refused(alice: User) -> None:
    """The session's API has no model configured and no local model installed."""
    listed = (await alice.client.get("/api/chat/engines")).json()
    assert [(e["id"], e["default"]) for e in listed["data"]] == [("offline", True)]
    for engine in ("cloud", "local"):
        refused = await alice.client.post("/api/conversations", json={"engine": engine})
        assert refused.status_code == 400, refused.text
        assert refused.json()["code"] == "engine_not_offered"
        assert refused.json()["hint"] == "choose one of: offline"
    assert (await alice.client.post("/api/conversations",
                                    json={"engine": "gpt-5"})).status_code == 422
    assert (await alice.client.get("/api/conversations")).json()["count"] == 0

    conversation = (await alice.client.post("/api/conversations",
                                            json={"title": "AML", "engine": "offline"})).json()
    url = f"/api/conversations/{conversation['id']}"
    refused = await alice.client.patch(url, json={"engine": "cloud", "title": "renamed"})
    assert refused.status_code == 400 and refused.json()["code"] == "engine_not_offered"
    assert (await alice.client.patch(url, json={})).status_code == 422
    kept = (await alice.client.get(url)).json()
    assert (kept["title"], kept["engine"]) == ("AML", "offline")  # nothing changed


async def test_another_tenant_can_neither_see_nor_switch_a_conversations_engine(
        cloud_app: FastAPI, carol: User) -> None:
    conversation = (await carol.client.post("/api/conversations",
                                            json={"engine": "offline"})).json()
    url = f"/api/conversations/{conversation['id']}"
    mallory = await sign_up(cloud_app)
    try:
        assert (await mallory.client.get(url)).status_code == 404
        assert (await mallory.client.patch(url, json={"engine": "cloud"})).status_code == 404
        assert (await mallory.client.post("/api/chat", json={
            "message": QUESTION, "thread_id": conversation["id"]})).status_code == 404
        assert (await mallory.client.get("/api/conversations")).json()["count"] == 0
    finally:
        await mallory.client.aclose()
    assert (await carol.client.get(url)).json()["engine"] == "offline"
