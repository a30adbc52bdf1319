"""Conversations and FAQ entries over HTTP."""

from __future__ import annotations

from fastapi import FastAPI

from tests.api.conftest import PASSWORD, User, client_for, new_email


async def test_create_rename_list_delete(alice: User) -> None:
    created = await alice.client.post("/api/conversations", json={})
    assert created.status_code == 201
    conversation = created.json()
    assert conversation["last_message_at"] is None
    renamed = await alice.client.patch(f"/api/conversations/{conversation['id']}",
                                       json={"title": "  AML questions "})
    assert renamed.status_code == 200 and renamed.json()["title"] == "AML questions"
    assert (await alice.client.patch(f"/api/conversations/{conversation['id']}",
                                     json={"title": ""})).status_code == 422
    listed = (await alice.client.get("/api/conversations")).json()
    assert listed["count"] == 1 and listed["data"][0]["title"] == "AML questions"
    messages = (await alice.client.get(
        f"/api/conversations/{conversation['id']}/messages")).json()
    assert messages == {"data": [], "count": 0}
    assert (await alice.client.delete(
        f"/api/conversations/{conversation['id']}")).status_code == 204
    assert (await alice.client.get(
        f"/api/conversations/{conversation['id']}")).status_code == 404
    assert (await alice.client.get("/api/conversations")).json()["count"] == 0


async def test_conversations_are_personal_within_a_tenant(api_app: FastAPI,
                                                          alice: User) -> None:
    mine = (await alice.client.post("/api/conversations", json={"title": "mine"})).json()
    token = (await alice.client.post("/api/invitations", json={
        "email": new_email("colleague")})).json()["token"]
    async with client_for(api_app) as colleague:
        joined = await colleague.post("/api/invitations/accept", json={
            "token": token, "password": PASSWORD})
        colleague.headers["X-CSRF-Token"] = joined.json()["csrf_token"]
        assert (await colleague.get("/api/conversations")).json()["count"] == 0
        assert (await colleague.get(f"/api/conversations/{mine['id']}")).status_code == 404
        assert (await colleague.delete(f"/api/conversations/{mine['id']}")).status_code == 404


async def test_faq_crud_for_admins(api_app: FastAPI, alice: User) -> None:
    created = await alice.client.post("/api/faq", json={
        "question": "Who is our MLRO?", "answer": "The Head of Compliance."})
    assert created.status_code == 201, created.text
    entry = created.json()
    assert (await alice.client.get(f"/api/faq/{entry['id']}")).json() == entry
    replaced = await alice.client.put(f"/api/faq/{entry['id']}", json={
        "question": "Who is our MLRO?", "answer": "Jane Doe, Head of Compliance."})
    assert replaced.status_code == 200
    listed = (await alice.client.get("/api/faq")).json()
    assert listed["count"] == 1 and listed["data"][0]["answer"].startswith("Jane")
    token = (await alice.client.post("/api/invitations", json={
        "email": new_email("member")})).json()["token"]
    async with client_for(api_app) as member:
        joined = await member.post("/api/invitations/accept", json={
            "token": token, "password": PASSWORD})
        member.headers["X-CSRF-Token"] = joined.json()["csrf_token"]
        assert (await member.get("/api/faq")).json()["count"] == 1  # members read
        denied = await member.post("/api/faq", json={"question": "Why?", "answer": "No."})
        assert denied.status_code == 403 and denied.json()["code"] == "permission_denied"
        assert (await member.delete(
            f"/api/faq/{replaced.json()['id']}")).status_code == 403
    assert (await alice.client.delete(f"/api/faq/{replaced.json()['id']}")).status_code == 204
    assert (await alice.client.get("/api/faq")).json()["count"] == 0
