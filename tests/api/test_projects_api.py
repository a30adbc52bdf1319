"""Projects over HTTP on the real stores: CRUD of projects, entities and links, the snapshot
with coverage, the context preview (workspace and focus), work from an audit finding — and
every id-bearing route refuses another tenant's ids (404) and leaves the owner's data alone."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.conftest import POLICY_TEXT, User, upload


async def _project(user: User, name: str = "AML programme 2026") -> dict[str, Any]:
    response = await user.client.post("/api/projects", json={
        "name": name, "description": "Bring the AML framework in line with the FSRA rules.",
        "start_at": "2026-01-01"})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


async def _entity(user: User, project_id: str, kind: str, **fields: Any) -> dict[str, Any]:
    response = await user.client.post(f"/api/projects/{project_id}/entities/{kind}",
                                      json={"fields": fields})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


async def test_project_crud_snapshot_coverage_and_context(alice: User) -> None:
    project = await _project(alice)
    pid = project["id"]
    assert project["state_key"] == "active" and project["start_at"].startswith("2026-01-01")

    listed = (await alice.client.get("/api/projects")).json()
    assert listed["count"] == 1 and listed["data"][0]["id"] == pid

    goal = await _entity(alice, pid, "goal", name="Pass the FSRA inspection")
    risk = await _entity(alice, pid, "risk", title="Late SAR filing", impact="high",
                         probability=0.4)
    task = await _entity(alice, pid, "task", title="Train staff on SAR deadlines", priority=1,
                         due_at="2026-03-01")
    assert task["data"]["state_key"] == "todo" and risk["data"]["state_key"] == "open"
    assert risk["data"]["probability"] == 0.4 and task["label"].startswith("Train staff")
    # An entity not linked to the project: counted as unlinked in the coverage.
    loose = (await alice.client.post(f"/api/projects/{pid}/entities/risk", json={
        "fields": {"title": "Unlinked risk"}, "link_to_project": False})).json()

    link = await alice.client.post(f"/api/projects/{pid}/links", json={
        "src_id": task["id"], "rel": "mitigates", "dst_id": risk["id"]})
    assert link.status_code == 201, link.text
    refused = await alice.client.post(f"/api/projects/{pid}/links", json={
        "src_id": goal["id"], "rel": "mitigates", "dst_id": risk["id"]})
    assert refused.status_code == 400 and "allowed" in refused.json()["title"]
    bad_field = await alice.client.post(f"/api/projects/{pid}/entities/task",
                                        json={"fields": {"title": "x", "colour": "red"}})
    assert bad_field.status_code == 400

    snap = (await alice.client.get(f"/api/projects/{pid}/snapshot")).json()
    kinds = {n["kind"] for n in snap["snapshot"]["nodes"]}
    assert {"project", "goal", "risk", "task"} <= kinds
    assert any(e["rel"] == "mitigates" for e in snap["snapshot"]["edges"])
    assert snap["coverage"]["risks"] == {"total": 2, "direct": 1, "unlinked": 1}
    assert snap["coverage"]["tasks"] == {"total": 1, "direct": 1, "unlinked": 0}
    assert snap["counts"]["goals"] == 1

    links = (await alice.client.get(f"/api/projects/{pid}/links")).json()
    assert links["count"] == 4  # has_goal, has_risk, has_task, mitigates
    entities = (await alice.client.get(f"/api/projects/{pid}/entities",
                                       params={"kind": "risk"})).json()
    assert {e["id"] for e in entities["data"]} == {risk["id"], loose["id"]}

    context = (await alice.client.get(f"/api/projects/{pid}/context")).json()
    assert context["kind"] == "project" and context["tokens"] > 0
    assert context["data"]["project"]["name"] == "AML programme 2026"
    assert context["tokens"] == -(-context["characters"] // 4)
    focus = (await alice.client.get(f"/api/projects/{pid}/context",
                                    params={"focus": risk["id"]})).json()
    assert focus["kind"] == "project_focus" and focus["data"]["focus"]["id"] == risk["id"]
    assert any(r["rel"] == "mitigates" for r in focus["data"]["relationships"])

    renamed = await alice.client.patch(f"/api/projects/{pid}", json={"name": "AML 2027"})
    assert renamed.status_code == 200 and renamed.json()["name"] == "AML 2027"
    updated = await alice.client.patch(f"/api/projects/{pid}/entities/task/{task['id']}",
                                       json={"fields": {"state_key": "done"}})
    assert updated.status_code == 200 and updated.json()["data"]["state_key"] == "done"
    wrong_kind = await alice.client.get(f"/api/projects/{pid}/entities/goal/{task['id']}")
    assert wrong_kind.status_code == 404

    mitigates = next(e for e in links["data"] if e["rel"] == "mitigates")
    assert (await alice.client.delete(
        f"/api/projects/{pid}/links/{mitigates['id']}")).status_code == 204
    assert (await alice.client.delete(
        f"/api/projects/{pid}/entities/risk/{loose['id']}")).status_code == 204
    assert (await alice.client.get(
        f"/api/projects/{pid}/entities/risk/{loose['id']}")).status_code == 404
    snap = (await alice.client.get(f"/api/projects/{pid}/snapshot")).json()
    assert snap["coverage"]["risks"] == {"total": 1, "direct": 1, "unlinked": 0}

    assert (await alice.client.delete(f"/api/projects/{pid}")).status_code == 204
    assert (await alice.client.get(f"/api/projects/{pid}")).status_code == 404
    assert (await alice.client.get("/api/projects")).json()["count"] == 0


async def test_an_entity_of_another_project_is_not_found_through_this_one(alice: User) -> None:
    first, second = await _project(alice, "One"), await _project(alice, "Two")
    task = await _entity(alice, first["id"], "task", title="Only in one")
    assert (await alice.client.get(
        f"/api/projects/{second['id']}/entities/task/{task['id']}")).status_code == 404
    cross = await alice.client.post(f"/api/projects/{second['id']}/links", json={
        "src_id": task["id"], "rel": "has_task", "dst_id": task["id"]})
    assert cross.status_code == 404


def _finding(target_doc: str) -> dict[str, Any]:
    return {"target_doc_id": target_doc, "target_doc_title": "Falcon AML Policy",
            "theme": "Suspicious activity reporting", "kind": "gap", "severity": "High",
            "consequence": "SARs may be filed late.", "target_quote": "report promptly",
            "suggestion": "Require reports within one business day.",
            "confidence_score": 0.8, "citations": [1]}


def _citations(regulation: str) -> list[dict[str, Any]]:
    return [{"n": 1, "source_type": "document", "document_id": regulation,
             "title": "ADGM AML Rules", "page": 3, "clause": "14.1",
             "quote": "must report suspicious activity"}]


async def test_a_finding_becomes_a_task_that_shows_in_the_snapshot(alice: User) -> None:
    policy = (await upload(alice, POLICY_TEXT.encode(), "p.txt")).json()["document"]["id"]
    regulation = (await upload(alice, b"ADGM AML Rules. 14.1 Firms must report.", "r.txt",
                               title="ADGM AML Rules", doc_type="regulation")
                  ).json()["document"]["id"]
    pid = (await _project(alice))["id"]
    response = await alice.client.post(f"/api/projects/{pid}/work-from-finding", json={
        "finding": _finding(policy), "citations": _citations(regulation), "kind": "task"})
    assert response.status_code == 201, response.text
    task = response.json()
    assert task["kind"] == "task" and task["data"]["priority"] == 2
    assert task["data"]["props"]["source_clause"] == "14.1"
    snap = (await alice.client.get(f"/api/projects/{pid}/snapshot")).json()
    ids = {n["id"] for n in snap["snapshot"]["nodes"]}
    assert task["id"] in ids and snap["coverage"]["documents"]["total"] == 1

    no_chunk = await alice.client.post(f"/api/projects/{pid}/work-from-finding", json={
        "finding": _finding(policy), "citations": [], "kind": "risk"})
    assert no_chunk.status_code == 400


async def test_a_finding_citing_another_tenants_document_is_refused(alice: User,
                                                                    mallory: User) -> None:
    theirs = (await upload(alice, POLICY_TEXT.encode(), "p.txt")).json()["document"]["id"]
    mine = (await upload(mallory, POLICY_TEXT.encode(), "m.txt")).json()["document"]["id"]
    pid = (await _project(mallory))["id"]
    response = await mallory.client.post(f"/api/projects/{pid}/work-from-finding", json={
        "finding": _finding(mine), "citations": _citations(theirs), "kind": "risk"})
    assert response.status_code == 404
    snap = (await mallory.client.get(f"/api/projects/{pid}/snapshot")).json()
    assert snap["coverage"]["risks"]["total"] == 0


async def test_the_tenant_comes_from_the_session_not_the_body(alice: User) -> None:
    response = await alice.client.post("/api/projects", json={
        "name": "x", "tenant_id": "00000000-0000-0000-0000-000000000001"})
    assert response.status_code == 422


async def test_relations_are_listed(alice: User) -> None:
    rules = (await alice.client.get("/api/projects/relations")).json()
    assert {"src_kind": "task", "rel": "mitigates", "dst_kind": "risk"} in rules["data"]


# (method, path template, body); {p} alice's project, {t} her task, {r} her risk, {l} a link.
ROUTES: list[tuple[str, str, dict[str, Any] | None]] = [
    ("GET", "/api/projects/{p}", None),
    ("PATCH", "/api/projects/{p}", {"name": "pwned"}),
    ("DELETE", "/api/projects/{p}", None),
    ("GET", "/api/projects/{p}/snapshot", None),
    ("GET", "/api/projects/{p}/context", None),
    ("GET", "/api/projects/{p}/context?focus={t}", None),
    ("GET", "/api/projects/{p}/entities", None),
    ("POST", "/api/projects/{p}/entities/task", {"fields": {"title": "pwned"}}),
    ("GET", "/api/projects/{p}/entities/task/{t}", None),
    ("PATCH", "/api/projects/{p}/entities/task/{t}", {"fields": {"title": "pwned"}}),
    ("DELETE", "/api/projects/{p}/entities/task/{t}", None),
    ("GET", "/api/projects/{p}/links", None),
    ("POST", "/api/projects/{p}/links", {"src_id": "{t}", "rel": "mitigates", "dst_id": "{r}"}),
    ("DELETE", "/api/projects/{p}/links/{l}", None),
    ("POST", "/api/projects/{p}/work-from-finding", {"finding": "FINDING", "kind": "task"}),
]


@pytest.mark.parametrize(("method", "template", "body"), ROUTES,
                         ids=[f"{m} {p}" for m, p, _ in ROUTES])
async def test_another_tenants_ids_are_not_found(method: str, template: str,
                                                 body: dict[str, Any] | None, alice: User,
                                                 mallory: User) -> None:
    pid = (await _project(alice))["id"]
    task = await _entity(alice, pid, "task", title="Alice's task")
    risk = await _entity(alice, pid, "risk", title="Alice's risk")
    links = (await alice.client.get(f"/api/projects/{pid}/links")).json()["data"]
    ids = {"p": pid, "t": task["id"], "r": risk["id"], "l": links[0]["id"]}
    path = template.format(**ids)
    if body is not None:
        body = {k: v.format(**ids) if isinstance(v, str) else v for k, v in body.items()}
        if body.get("finding") == "FINDING":
            doc = (await upload(mallory, POLICY_TEXT.encode(), "m.txt")).json()["document"]["id"]
            body["finding"], body["citations"] = _finding(doc), _citations(doc)

    response = await mallory.client.request(method, path, json=body)
    assert response.status_code == 404, (path, response.text)
    assert response.headers["content-type"] == "application/problem+json"

    # Mallory's own project cannot reach alice's entities either.
    own = (await _project(mallory))["id"]
    for route in (f"/api/projects/{own}/entities/task/{task['id']}",
                  f"/api/projects/{own}/context?focus={task['id']}"):
        assert (await mallory.client.get(route)).status_code == 404
    linked = await mallory.client.post(f"/api/projects/{own}/links", json={
        "src_id": own, "rel": "has_task", "dst_id": task["id"]})
    assert linked.status_code == 404

    # Nothing of alice's was read, changed or removed.
    project = await alice.client.get(f"/api/projects/{pid}")
    assert project.status_code == 200 and project.json()["name"] == "AML programme 2026"
    kept = await alice.client.get(f"/api/projects/{pid}/entities/task/{task['id']}")
    assert kept.status_code == 200 and kept.json()["label"] == "Alice's task"
    snap = (await alice.client.get(f"/api/projects/{pid}/snapshot")).json()
    assert snap["counts"]["tasks"] == 1
    assert len((await alice.client.get(f"/api/projects/{pid}/links")).json()["data"]) == 2
