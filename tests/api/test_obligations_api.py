"""GET /api/documents/{id}/obligations: a regulation's register, built by the ingestion
follow-up (or on first request), each obligation with its rule number; never another
tenant's."""

from __future__ import annotations

from fastapi import FastAPI

from regintel.container import Container
from tests.api.conftest import User, ingest, upload

REGULATION = """Rulebook of Test Rules

3.1.1\tA Firm must keep a record of every complaint for at least six years.
3.1.2\tA Firm must:
(a)\tappoint a complaints officer; and
(b)\treport the complaints it received to the Board at least annually.
3.1.3\tA Firm must not charge a fee for handling a complaint.
3.1.4\tThe term "complaint" shall mean any expression of dissatisfaction.
"""


async def test_register_listed_with_rule_numbers_and_only_to_its_tenant(
        api_app: FastAPI, container: Container, alice: User, mallory: User) -> None:
    uploaded = await upload(alice, REGULATION.encode(), "rules.txt", title="Test Rules",
                            doc_type="regulation")
    doc = uploaded.json()["document"]["id"]
    assert (await ingest(container, alice, doc))["status"] == "ready"

    response = await alice.client.get(f"/api/documents/{doc}/obligations")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["count"] == 3  # the definition ("shall mean") is no obligation
    by_rule = {row["rule"]: row for row in body["data"]}
    assert set(by_rule) == {"3.1.1", "3.1.2", "3.1.3"}
    assert by_rule["3.1.1"]["facts"][0]["text"] == "at least six years"
    assert [i["label"] for i in by_rule["3.1.2"]["items"]] == ["(a)", "(b)"]
    assert by_rule["3.1.3"]["strength"] == "prohibition"
    assert all(row["document_title"] == "Test Rules" for row in body["data"])

    stranger = await mallory.client.get(f"/api/documents/{doc}/obligations")
    assert stranger.status_code == 404
    assert stranger.headers["content-type"] == "application/problem+json"
