"""Chat over HTTP: the SSE event sequence on a small ingested document, resuming a pending
question, cancellation when the client disconnects, refusals before the stream starts."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from fastapi import FastAPI
from starlette.types import Message

from regintel.api.sse import ChatStream
from regintel.container import Container
from regintel.settings import Settings
from tests.api.conftest import POLICY_TEXT, User, ingest, sse_events, upload

QUESTION = "What must staff do about a suspicious transaction?"


async def _ready_document(user: User, container: Container, text: str = POLICY_TEXT,
                          title: str = "AML Policy", name: str = "aml.txt",
                          doc_type: str = "policy") -> dict[str, Any]:
    response = await upload(user, text.encode(), name, title=title, doc_type=doc_type)
    assert response.status_code == 201, response.text
    document = await ingest(container, user, response.json()["document"]["id"])
    assert document["status"] == "ready"
    return document


async def test_chat_streams_status_then_text_then_meta(alice: User,
                                                       container: Container) -> None:
    document = await _ready_document(alice, container)
    response = await alice.client.post("/api/chat", json={
        "message": QUESTION, "tagged_doc_ids": [document["id"]]})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    events = sse_events(response.text)
    kinds = [k for k, _ in events]
    assert kinds[0] == "status" and kinds[-1] == "meta"
    assert "text" in kinds and kinds.count("meta") == 1
    assert kinds.index("text") > kinds.index("status")
    assert all(k in ("status", "text") for k in kinds[:-1])
    assert {"node"} == set(events[0][1])
    meta = events[-1][1]
    streamed = "".join(d["delta"] for k, d in events if k == "text")
    assert meta["answer"] and streamed.strip()
    assert meta["citations"] and meta["citations"][0]["document_id"] == document["id"]
    assert "usage" in meta and "validation" in meta and "triage" in meta

    thread = meta["thread_id"]
    listed = (await alice.client.get("/api/conversations")).json()
    assert listed["data"][0]["id"] == thread and listed["data"][0]["title"] == QUESTION
    assert listed["data"][0]["last_message_at"]
    messages = (await alice.client.get(f"/api/conversations/{thread}/messages")).json()
    assert [m["role"] for m in messages["data"]] == ["user", "assistant"]
    # The answer is kept as it was sent, for a reopened conversation to show it again.
    kept = messages["data"][1]["metadata"]["response"]
    assert {k: kept[k] for k in ("answer", "citations", "confidence", "usage", "engine")} == {
        k: meta[k] for k in ("answer", "citations", "confidence", "usage", "engine")}
    usage = (await alice.client.get(f"/api/conversations/{thread}/usage")).json()
    assert usage["turns"] == 1
    tenant = (await alice.client.get("/api/usage")).json()
    assert tenant["total"]["turns"] == 1
    assert tenant["by_conversation"][0]["conversation_id"] == thread


async def test_pending_question_is_resumed_with_the_users_choice(
        alice: User, container: Container) -> None:
    first = await _ready_document(alice, container, title="ADGM AML Rules",
                                  doc_type="regulation")
    second = await _ready_document(
        alice, container, name="records.txt", title="Record Keeping Rules",
        doc_type="regulation", text="Records must be kept for six years. A firm shall report "
        "suspicious transactions to the FIU. Customer due diligence is required.")
    asked = await alice.client.post("/api/chat", json={
        "message": "Compare this regulation", "tagged_doc_ids": [first["id"]]})
    meta = sse_events(asked.text)[-1][1]
    assert meta["needs_input"]["kind"] == "missing_docs"
    assert second["id"] in [o["id"] for o in meta["needs_input"]["options"]]
    resumed = await alice.client.post("/api/chat", json={
        "thread_id": meta["thread_id"], "resume": second["id"]})
    assert resumed.status_code == 200, resumed.text
    kind, meta = sse_events(resumed.text)[-1]
    assert kind == "meta"
    assert {d["id"] for d in meta["resolved_documents"]} == {first["id"], second["id"]}
    if meta["needs_input"] is not None:  # thin evidence in two tiny files: asked again
        assert meta["needs_input"]["kind"] == "low_confidence"
        again = await alice.client.post("/api/chat", json={
            "thread_id": meta["thread_id"], "resume": "continue"})
        kind, meta = sse_events(again.text)[-1]
    assert kind == "meta" and meta["comparison"] is not None and meta["needs_input"] is None


async def test_refusals_come_before_the_stream(alice: User, container: Container) -> None:
    empty = await alice.client.post("/api/chat", json={"message": "   "})
    assert empty.status_code == 400
    assert empty.headers["content-type"] == "application/problem+json"
    no_thread = await alice.client.post("/api/chat", json={"resume": "x"})
    assert no_thread.status_code == 422
    queued = (await upload(alice, b"A firm must report.", "q.txt")).json()["document"]
    not_ready = await alice.client.post("/api/chat", json={
        "message": QUESTION, "tagged_doc_ids": [queued["id"]]})
    assert not_ready.status_code == 400 and "not ready" in not_ready.json()["title"]


async def test_disconnect_cancels_the_turn(api_app: FastAPI, alice: User,
                                           container: Container,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    document = await _ready_document(alice, container)
    streams: list[ChatStream] = []
    original = ChatStream.__init__

    def tracked(self: ChatStream, events: Any, **options: Any) -> None:
        original(self, events, **options)
        streams.append(self)

    monkeypatch.setattr(ChatStream, "__init__", tracked)
    body = json.dumps({"message": QUESTION, "tagged_doc_ids": [document["id"]]}).encode()
    headers = [(b"content-type", b"application/json"),
               (b"x-csrf-token", alice.client.headers["X-CSRF-Token"].encode()),
               (b"cookie", f"regintel_session={alice.client.cookies['regintel_session']}"
                .encode())]
    scope = {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.4"},
             "http_version": "1.1", "method": "POST", "scheme": "http", "path": "/api/chat",
             "raw_path": b"/api/chat", "query_string": b"", "root_path": "",
             "headers": headers, "client": ("127.0.0.1", 5000), "server": ("test", 80)}
    first_chunk = asyncio.Event()
    chunks: list[bytes] = []
    request_sent = False

    async def receive() -> Message:
        nonlocal request_sent
        if not request_sent:
            request_sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await first_chunk.wait()  # the user closes the tab as soon as something arrives
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        if message["type"] == "http.response.body" and message.get("body"):
            chunks.append(message["body"])
            first_chunk.set()

    await asyncio.wait_for(api_app(scope, receive, send), timeout=60)
    [stream] = streams
    await asyncio.gather(stream.task, return_exceptions=True)
    assert stream.cancelled and stream.task.cancelled()  # stopped mid-turn, not finished
    assert b"event: meta" not in b"".join(chunks)
    [conversation] = (await alice.client.get("/api/conversations")).json()["data"]
    messages = (await alice.client.get(
        f"/api/conversations/{conversation['id']}/messages")).json()["data"]
    assert "assistant" not in [m["role"] for m in messages]


@pytest.mark.parametrize("field", ["thread_id", "tagged_doc_ids", "tagged_set_ids"])
async def test_chat_refuses_another_tenants_ids(field: str, alice: User, mallory: User,
                                                container: Container) -> None:
    response = await upload(alice, POLICY_TEXT.encode(), "p.txt", title="Secret Policy",
                            set_name="Secret")
    document = response.json()["document"]
    conversation = (await alice.client.post("/api/conversations", json={})).json()
    value: Any = {"thread_id": conversation["id"], "tagged_doc_ids": [document["id"]],
                  "tagged_set_ids": [document["set"]["id"]]}[field]
    refused = await mallory.client.post("/api/chat", json={"message": QUESTION, field: value})
    assert refused.status_code == 404, refused.text


async def test_slow_start_opens_with_accepted_and_refuses_in_stream(
        api_app: FastAPI, alice: User, container: Container) -> None:
    saved: Settings = api_app.state.settings
    api_app.state.settings = saved.model_copy(update={
        "api": saved.api.model_copy(update={"first_event_wait_ms": 0})})
    try:
        document = await _ready_document(alice, container)
        answered = await alice.client.post("/api/chat", json={
            "message": QUESTION, "tagged_doc_ids": [document["id"]]})
        events = sse_events(answered.text)
        assert events[0] == ("status", {"node": "accepted"}) and events[-1][0] == "meta"
        queued = (await upload(alice, b"A firm must report.", "q.txt")).json()["document"]
        refused = await alice.client.post("/api/chat", json={
            "message": QUESTION, "tagged_doc_ids": [queued["id"]]})
        assert refused.status_code == 200
        events = sse_events(refused.text)
        assert [k for k, _ in events] == ["status", "error"]
        assert events[0][1] == {"node": "accepted"}
        assert events[1][1]["status"] == 400 and "not ready" in events[1][1]["title"]
    finally:
        api_app.state.settings = saved


async def test_a_turn_beyond_the_concurrent_limit_waits_its_turn(
        api_app: FastAPI, alice: User, container: Container) -> None:
    saved: Settings = api_app.state.settings
    api_app.state.settings = saved.model_copy(update={
        "api": saved.api.model_copy(update={"first_event_wait_ms": 0})})
    gate = container.turn_gate
    assert gate is not None  # the offline engine's turns are CPU work: they are limited
    held = 0
    try:
        document = await _ready_document(alice, container)
        while not gate.locked():
            await gate.acquire()  # every place taken, as by turns in progress
            held += 1
        waiting = asyncio.create_task(alice.client.post("/api/chat", json={
            "message": QUESTION, "tagged_doc_ids": [document["id"]]}))
        await asyncio.sleep(1.0)
        assert not waiting.done()  # it waits for a place …
        gate.release()
        held -= 1
        events = sse_events((await asyncio.wait_for(waiting, 120)).text)
        # … with its stream open at once, and is answered when a place frees up.
        assert events[0] == ("status", {"node": "accepted"}) and events[-1][0] == "meta"
    finally:
        for _ in range(held):
            gate.release()
        api_app.state.settings = saved


async def test_a_chat_created_empty_takes_a_clean_distinct_title(alice: User,
                                                                 container: Container) -> None:
    document = await _ready_document(alice, container)
    titles = []
    for _ in range(2):
        created = (await alice.client.post("/api/conversations", json={})).json()
        response = await alice.client.post("/api/chat", json={
            "message": f"@[AML Policy] {QUESTION}", "thread_id": created["id"],
            "tagged_doc_ids": [document["id"]]})
        assert response.status_code == 200, response.text
        titles.append((await alice.client.get("/api/conversations")).json()["data"][0]["title"])
    assert titles == [f"AML Policy {QUESTION}", f"AML Policy {QUESTION} (2)"]
