"""Who may remove shared organisation data (issue 34, finding 5): owners and admins anything,
a member only what they uploaded or created (api/permissions.py); the usage totals show a
member only their own conversations; a conversation cannot be tied to another tenant's
project."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any
from uuid import UUID

import pytest
from fastapi import FastAPI

from regintel.container import Container
from regintel.domain.documents import DocType
from tests.api.conftest import PASSWORD, POLICY_TEXT, User, client_for, new_email, upload


async def join(app: FastAPI, owner: User, role: str) -> User:
    """A new account invited into ``owner``'s organisation with ``role``."""
    email = new_email(role)
    invited = await owner.client.post("/api/invitations", json={"email": email, "role": role})
    assert invited.status_code == 201, invited.text
    client = client_for(app)
    joined = await client.post("/api/invitations/accept", json={
        "token": invited.json()["token"], "password": PASSWORD})
    assert joined.status_code == 200, joined.text
    body = joined.json()
    assert body["role"] == role and body["tenant_id"] == str(owner.tenant_id)
    client.headers["X-CSRF-Token"] = body["csrf_token"]
    return User(client, email, UUID(body["user_id"]), UUID(body["tenant_id"]))


@pytest.fixture
async def bob(api_app: FastAPI, alice: User) -> AsyncIterator[User]:
    """A member of alice's organisation."""
    user = await join(api_app, alice, "member")
    yield user
    await user.client.aclose()


@pytest.fixture
async def carol(api_app: FastAPI, alice: User) -> AsyncIterator[User]:
    """An admin of alice's organisation."""
    user = await join(api_app, alice, "admin")
    yield user
    await user.client.aclose()


def _text(label: str) -> bytes:
    # Distinct bytes: an identical file would be the library's existing document.
    return f"{label} {uuid.uuid4().hex}\n\n{POLICY_TEXT}".encode()


async def _document(user: User, label: str) -> str:
    response = await upload(user, _text(label), f"{label}.txt", title=label)
    assert response.status_code == 201, response.text
    document_id: str = response.json()["document"]["id"]
    return document_id


def _assert_forbidden(response: Any) -> None:
    assert response.status_code == 403, response.text
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["code"] == "permission_denied"
    assert response.json()["title"].startswith("only an owner or admin")


# -- documents ---------------------------------------------------------------------------------
async def test_a_member_deletes_only_the_documents_they_uploaded(alice: User, bob: User,
                                                                 carol: User) -> None:
    alices = await _document(alice, "Alice policy")
    _assert_forbidden(await bob.client.delete(f"/api/documents/{alices}"))
    assert (await bob.client.get(f"/api/documents/{alices}")).status_code == 200

    bobs = await _document(bob, "Bob notes")
    assert (await bob.client.delete(f"/api/documents/{bobs}")).status_code == 204
    assert (await alice.client.get(f"/api/documents/{bobs}")).status_code == 404

    # Admins and owners delete anyone's.
    bobs = await _document(bob, "Bob draft")
    assert (await carol.client.delete(f"/api/documents/{bobs}")).status_code == 204
    assert (await alice.client.delete(f"/api/documents/{alices}")).status_code == 204


async def test_uploading_the_same_file_again_does_not_make_one_its_uploader(
        alice: User, bob: User) -> None:
    data = _text("Shared policy")
    first = await upload(alice, data, "shared.txt", title="Shared policy")
    again = await upload(bob, data, "shared.txt", title="Shared policy")
    assert again.status_code == 200 and not again.json()["created"]
    document_id = first.json()["document"]["id"]
    assert again.json()["document"]["id"] == document_id
    _assert_forbidden(await bob.client.delete(f"/api/documents/{document_id}"))
    assert (await alice.client.get(f"/api/documents/{document_id}")).status_code == 200


async def test_a_document_without_a_recorded_uploader_is_for_admins_only(
        alice: User, bob: User, carol: User, container: Container) -> None:
    # As the CLI and the demo ingest: no uploader.
    submitted = await container.ingestion.submit(
        alice.tenant_id, data=_text("CLI upload"), filename="cli.txt", title="CLI upload",
        doc_type=DocType.POLICY)
    assert submitted.created and submitted.document.uploaded_by is None
    path = f"/api/documents/{submitted.document.id}"
    _assert_forbidden(await bob.client.delete(path))
    assert (await carol.client.delete(path)).status_code == 204
    assert (await alice.client.get(path)).status_code == 404


# -- projects ----------------------------------------------------------------------------------
async def _project(user: User, name: str) -> str:
    response = await user.client.post("/api/projects", json={"name": name})
    assert response.status_code == 201, response.text
    project_id: str = response.json()["id"]
    return project_id


async def _entity(user: User, project_id: str, kind: str, **fields: Any) -> str:
    response = await user.client.post(f"/api/projects/{project_id}/entities/{kind}",
                                      json={"fields": fields})
    assert response.status_code == 201, response.text
    entity_id: str = response.json()["id"]
    return entity_id


async def test_a_member_deletes_only_projects_they_created(alice: User, bob: User,
                                                           carol: User) -> None:
    alices = await _project(alice, "Alice's programme")
    _assert_forbidden(await bob.client.delete(f"/api/projects/{alices}"))
    assert (await bob.client.get(f"/api/projects/{alices}")).status_code == 200

    bobs = await _project(bob, "Bob's programme")
    assert (await bob.client.delete(f"/api/projects/{bobs}")).status_code == 204
    assert (await alice.client.get(f"/api/projects/{bobs}")).status_code == 404

    bobs = await _project(bob, "Bob's other programme")
    assert (await carol.client.delete(f"/api/projects/{bobs}")).status_code == 204
    assert (await alice.client.delete(f"/api/projects/{alices}")).status_code == 204


async def test_entities_are_deleted_by_their_creator_or_the_projects(
        alice: User, bob: User) -> None:
    alices = await _project(alice, "Alice's programme")
    risk = await _entity(alice, alices, "risk", title="Late SAR filing")
    # Members work in anyone's project...
    task = await _entity(bob, alices, "task", title="Train staff")
    # ...but remove only their own entries from it.
    _assert_forbidden(await bob.client.delete(f"/api/projects/{alices}/entities/risk/{risk}"))
    assert (await bob.client.get(
        f"/api/projects/{alices}/entities/risk/{risk}")).status_code == 200
    assert (await bob.client.delete(
        f"/api/projects/{alices}/entities/task/{task}")).status_code == 204

    # The project's creator (a member here) removes anyone's entry from their project.
    bobs = await _project(bob, "Bob's programme")
    goal = await _entity(alice, bobs, "goal", name="Pass the inspection")
    assert (await bob.client.delete(
        f"/api/projects/{bobs}/entities/goal/{goal}")).status_code == 204


async def test_links_are_removed_by_who_may_delete_one_of_their_ends(
        alice: User, bob: User) -> None:
    pid = await _project(alice, "Alice's programme")
    risk = await _entity(alice, pid, "risk", title="Late SAR filing")
    alices_task = await _entity(alice, pid, "task", title="Write the SAR procedure")
    bobs_task = await _entity(bob, pid, "task", title="Train staff")
    links = []
    for task in (alices_task, bobs_task):
        created = await bob.client.post(f"/api/projects/{pid}/links", json={
            "src_id": task, "rel": "mitigates", "dst_id": risk})
        assert created.status_code == 201, created.text
        links.append(created.json()["id"])

    _assert_forbidden(await bob.client.delete(f"/api/projects/{pid}/links/{links[0]}"))
    assert (await bob.client.delete(f"/api/projects/{pid}/links/{links[1]}")).status_code == 204
    remaining = (await alice.client.get(f"/api/projects/{pid}/links")).json()["data"]
    assert links[0] in {link["id"] for link in remaining}
    assert links[1] not in {link["id"] for link in remaining}
    assert (await alice.client.delete(f"/api/projects/{pid}/links/{links[0]}")).status_code == 204


# -- usage -------------------------------------------------------------------------------------
async def test_usage_shows_a_member_only_their_own_conversations(
        alice: User, bob: User, carol: User, container: Container) -> None:
    conversations = {}
    for user, tokens in ((alice, 10), (bob, 20)):
        conversation = (await user.client.post("/api/conversations", json={"title": "t"})).json()
        conversations[user.email] = conversation["id"]
        # As the chat's respond node records a turn.
        await container.conversations.record_usage(
            user.tenant_id, user_id=user.user_id, conversation_id=UUID(conversation["id"]),
            action="ask", engine="offline", model="", input_tokens=tokens,
            output_tokens=1, cost_usd=0.0)

    seen = (await bob.client.get("/api/usage")).json()
    assert seen["total"]["turns"] == 2 and seen["total"]["input_tokens"] == 30
    assert [c["conversation_id"] for c in seen["by_conversation"]] == [
        conversations[bob.email]]
    for admin in (alice, carol):
        seen = (await admin.client.get("/api/usage")).json()
        assert {c["conversation_id"] for c in seen["by_conversation"]} == set(
            conversations.values())


# -- a project of another tenant ---------------------------------------------------------------
async def test_a_conversation_cannot_name_another_tenants_project(alice: User,
                                                                  mallory: User) -> None:
    theirs = await _project(mallory, "Mallory's programme")
    for project_id in (theirs, str(uuid.uuid4())):
        refused = await alice.client.post("/api/conversations", json={
            "title": "t", "project_id": project_id})
        assert refused.status_code == 404, refused.text
        assert refused.headers["content-type"] == "application/problem+json"
    assert (await alice.client.get("/api/conversations")).json()["count"] == 0

    mine = await _project(alice, "Alice's programme")
    created = await alice.client.post("/api/conversations", json={
        "title": "t", "project_id": mine})
    assert created.status_code == 201 and created.json()["project_id"] == mine


async def test_a_chat_turn_cannot_name_another_tenants_project(alice: User,
                                                               mallory: User) -> None:
    theirs = await _project(mallory, "Mallory's programme")
    refused = await alice.client.post("/api/chat", json={
        "message": "What must staff report?", "project_id": theirs})
    assert refused.status_code == 404, refused.text
    assert refused.headers["content-type"] == "application/problem+json"
    assert (await alice.client.get("/api/conversations")).json()["count"] == 0
