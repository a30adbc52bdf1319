"""Every id-bearing route answers 404 to a user of another tenant (and leaves the owner's
data alone): the tenant comes from the session, so another tenant's ids simply do not exist."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.conftest import POLICY_TEXT, User, new_email, upload

# (method, path template, JSON body); {doc}, {conv}, {inv}, {faq} are alice's ids.
ROUTES: list[tuple[str, str, dict[str, Any] | None]] = [
    ("GET", "/api/documents/{doc}", None),
    ("DELETE", "/api/documents/{doc}", None),
    ("GET", "/api/documents/{doc}/obligations", None),
    ("GET", "/api/documents/{doc}/versions", None),
    ("GET", "/api/conversations/{conv}", None),
    ("PATCH", "/api/conversations/{conv}", {"title": "pwned"}),
    ("DELETE", "/api/conversations/{conv}", None),
    ("GET", "/api/conversations/{conv}/messages", None),
    ("GET", "/api/conversations/{conv}/usage", None),
    ("DELETE", "/api/invitations/{inv}", None),
    ("GET", "/api/faq/{faq}", None),
    ("PUT", "/api/faq/{faq}", {"question": "pwned?", "answer": "pwned"}),
    ("DELETE", "/api/faq/{faq}", None),
]


@pytest.mark.parametrize(("method", "template", "body"), ROUTES,
                         ids=[f"{m} {p}" for m, p, _ in ROUTES])
async def test_another_tenants_id_is_not_found(method: str, template: str,
                                               body: dict[str, Any] | None, alice: User,
                                               mallory: User) -> None:
    doc = (await upload(alice, POLICY_TEXT.encode(), "p.txt")).json()["document"]["id"]
    conv = (await alice.client.post("/api/conversations", json={"title": "t"})).json()["id"]
    inv = (await alice.client.post("/api/invitations", json={"email": new_email()})).json()["id"]
    faq = (await alice.client.post("/api/faq", json={"question": "Who is our MLRO?",
                                                     "answer": "Jane."})).json()["id"]
    path = template.format(doc=doc, conv=conv, inv=inv, faq=faq)

    response = await mallory.client.request(method, path, json=body)
    assert response.status_code == 404, (path, response.text)
    assert response.headers["content-type"] == "application/problem+json"

    # Nothing of alice's was read, changed or removed.
    assert (await alice.client.get(f"/api/documents/{doc}")).status_code == 200
    assert (await alice.client.get(f"/api/conversations/{conv}")).json()["title"] == "t"
    assert (await alice.client.get("/api/invitations")).json()["count"] == 1
    assert (await alice.client.get(f"/api/faq/{faq}")).json()["answer"] == "Jane."
