"""The officer's review of an audit over HTTP (issue 47): a real audit (offline engine, through
/api/chat) read back as a review queue, decisions recorded and superseded, refused when they
name no row of the audit or quote words the policy does not have, kept from other users and
tenants (by the routes and by row-level security), and carried into a later audit of the same
policy in another conversation."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest
from fastapi import FastAPI
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from regintel.chat.llm.fake import Item, ScriptedChatModel, json_reply
from regintel.container import Container
from regintel.domain.review import document_key
from tests.api.conftest import PASSWORD, User, client_for, new_email, sse_events
from tests.api.test_audit_export import POLICY, RULES, _document

RANK = {"finding": 0, "review": 1, "likely_met": 2, "not_applicable": 3}


async def _audit_turn(user: User, documents: list[str]) -> str:
    """One audit turn in a new conversation; its id."""
    response = await user.client.post("/api/chat", json={
        "message": "Audit the policy against the rules", "action": "audit",
        "tagged_doc_ids": documents})
    assert response.status_code == 200, response.text
    kind, meta = sse_events(response.text)[-1]
    assert kind == "meta" and meta["audit"] is not None, meta
    return str(meta["thread_id"])


async def _answer(user: User, conversation: str) -> str:
    messages = (await user.client.get(f"/api/conversations/{conversation}/messages")).json()
    return str([m for m in messages["data"] if m["role"] == "assistant"][-1]["id"])


@pytest.fixture
async def audit(alice: User, container: Container) -> dict[str, str]:
    rules = await _document(alice, container, RULES, "rules.txt", "regulation")
    policy = await _document(alice, container, POLICY, "policy.txt", "policy")
    conversation = await _audit_turn(alice, [policy, rules])
    return {"conversation": conversation, "message": await _answer(alice, conversation),
            "policy": policy, "rules": rules}


def _path(audit: dict[str, str]) -> str:
    return f"/api/conversations/{audit['conversation']}/messages/{audit['message']}/review"


async def _review(user: User, audit: dict[str, str]) -> dict[str, Any]:
    response = await user.client.get(_path(audit))
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _with_quote(review: dict[str, Any]) -> dict[str, Any]:
    return next(r for r in review["rows"] if r["candidates"])


async def test_the_review_lists_the_rows_in_queue_order(alice: User,
                                                        audit: dict[str, str]) -> None:
    review = await _review(alice, audit)
    latest = await alice.client.get(f"/api/conversations/{audit['conversation']}/review")
    assert latest.status_code == 200 and latest.json() == review
    assert review["message_id"] == audit["message"]
    assert review["policy_title"] == "policy.txt"
    assert review["regulations"] == [{"id": audit["rules"], "title": "rules.txt"}]
    rows = review["rows"]
    assert {r["rule"] for r in rows} >= {"1.1.1", "1.1.2", "1.1.3"}
    order = [(RANK[r["review"]], -r["priority"]) for r in rows]
    assert order == sorted(order)
    assert all(r["decision"] is None and r["reopened"] is None for r in rows)
    assert all(r["regulation_title"] == "rules.txt" and r["part"] for r in rows)
    quoted = _with_quote(review)["candidates"][0]
    assert quoted["document_id"] == audit["policy"]
    assert " ".join(quoted["quote"].split()) in " ".join(POLICY.split())
    total = sum(1 for r in rows if r["review"] != "not_applicable")
    proven = sum(1 for r in rows if r["review"] == "finding")  # until a decision overrules
    assert review["progress"] == {"total": total, "decided": 0, "findings": proven,
                                  "open": total, "reopened": 0}


async def test_a_decision_is_recorded_then_superseded(alice: User, container: Container,
                                                      audit: dict[str, str]) -> None:
    before = await _review(alice, audit)
    row = _with_quote(before)
    # The engine's proven findings count until the officer decides otherwise.
    others = sum(1 for r in before["rows"] if r["review"] == "finding"
                 and r["obligation_key"] != row["obligation_key"])
    first = await alice.client.post(_path(audit), json={
        "obligation_key": row["obligation_key"], "decision": "gap", "note": "Too short."})
    assert first.status_code == 201, first.text
    recorded = first.json()
    decision = recorded["row"]["decision"]
    assert (decision["decision"], decision["note"]) == ("gap", "Too short.")
    assert decision["decided_by"] == str(alice.user_id)
    assert decision["decided_by_name"] == alice.email
    assert decision["conversation_id"] == audit["conversation"]
    assert decision["policy_key"] == "policy.txt" and decision["regulation_key"] == "rules.txt"
    assert recorded["progress"]["decided"] == 1
    assert recorded["progress"]["findings"] == others + 1

    again = await _review(alice, audit)
    [shown] = [r for r in again["rows"] if r["obligation_key"] == row["obligation_key"]]
    assert shown["decision"] == decision and shown["reopened"] is None
    assert again["progress"]["decided"] == 1
    assert again["progress"]["open"] == again["progress"]["total"] - 1

    clause = row["candidates"][0]["quote"]
    second = await alice.client.post(_path(audit), json={
        "obligation_key": row["obligation_key"], "decision": "met",
        "clause": "  " + " \n".join(clause.split()) + " "})
    assert second.status_code == 201, second.text
    now = second.json()["row"]["decision"]
    assert now["decision"] == "met" and now["id"] != decision["id"]
    assert second.json()["progress"]["decided"] == 1
    assert second.json()["progress"]["findings"] == others
    history = await container.reviews.history(alice.tenant_id, "policy.txt", "rules.txt",
                                              row["obligation_key"])
    assert [d.decision for d in history] == ["gap", "met"]


async def test_decisions_on_no_row_or_on_words_the_policy_lacks_are_refused(
        alice: User, audit: dict[str, str]) -> None:
    row = _with_quote(await _review(alice, audit))
    unknown = await alice.client.post(_path(audit), json={
        "obligation_key": "f" * 24, "decision": "gap"})
    assert unknown.status_code == 400
    assert unknown.json()["code"] == "invalid_request"
    assert "no row" in unknown.json()["title"]
    invented = await alice.client.post(_path(audit), json={
        "obligation_key": row["obligation_key"], "decision": "met",
        "clause": "The Firm keeps every record forever."})
    assert invented.status_code == 400
    assert "not in the policy" in invented.json()["title"]
    shouted = await alice.client.post(_path(audit), json={
        "obligation_key": row["obligation_key"], "decision": "met",
        "clause": row["candidates"][0]["quote"].upper()})
    assert shouted.status_code == 400  # word for word: case counts
    malformed = await alice.client.post(_path(audit), json={
        "obligation_key": row["obligation_key"], "decision": "maybe"})
    assert malformed.status_code == 422
    assert (await _review(alice, audit))["progress"]["decided"] == 0


async def test_a_message_or_conversation_without_an_audit_is_not_found(
        alice: User, audit: dict[str, str]) -> None:
    messages = (await alice.client.get(
        f"/api/conversations/{audit['conversation']}/messages")).json()["data"]
    question = next(m["id"] for m in messages if m["role"] == "user")
    path = f"/api/conversations/{audit['conversation']}/messages/{question}/review"
    response = await alice.client.get(path)
    assert response.status_code == 404 and "no audit" in response.json()["title"]
    empty = (await alice.client.post("/api/conversations", json={"title": "t"})).json()
    response = await alice.client.get(f"/api/conversations/{empty['id']}/review")
    assert response.status_code == 404 and "no audit" in response.json()["title"]


async def test_other_users_and_tenants_neither_see_nor_decide(
        api_app: FastAPI, alice: User, mallory: User, container: Container,
        audit: dict[str, str]) -> None:
    row = _with_quote(await _review(alice, audit))
    body = {"obligation_key": row["obligation_key"], "decision": "gap"}
    latest = f"/api/conversations/{audit['conversation']}/review"
    assert (await mallory.client.get(_path(audit))).status_code == 404
    assert (await mallory.client.get(latest)).status_code == 404
    assert (await mallory.client.post(_path(audit), json=body)).status_code == 404
    token = (await alice.client.post("/api/invitations", json={
        "email": new_email("colleague")})).json()["token"]
    async with client_for(api_app) as colleague:
        joined = await colleague.post("/api/invitations/accept", json={
            "token": token, "password": PASSWORD})
        colleague.headers["X-CSRF-Token"] = joined.json()["csrf_token"]
        assert (await colleague.get(_path(audit))).status_code == 404
        assert (await colleague.post(_path(audit), json=body)).status_code == 404
    assert (await _review(alice, audit))["progress"]["decided"] == 0

    assert (await alice.client.post(_path(audit), json=body)).status_code == 201
    # Row-level security: another tenant's session sees none of it, whatever it asks.
    assert await container.reviews.latest(mallory.tenant_id, "policy.txt",
                                          ["rules.txt"]) == {}
    assert await container.reviews.history(mallory.tenant_id, "policy.txt", "rules.txt",
                                           row["obligation_key"]) == []
    async with container.database.tenant_session(mallory.tenant_id) as session:
        seen = (await session.execute(text("SELECT count(*) FROM review_decisions"))).scalar()
    async with container.database.tenant_session(alice.tenant_id) as session:
        own = (await session.execute(text("SELECT count(*) FROM review_decisions"))).scalar()
    assert seen == 0 and own == 1


async def test_the_trail_cannot_be_rewritten(alice: User, container: Container,
                                             audit: dict[str, str]) -> None:
    row = _with_quote(await _review(alice, audit))
    await alice.client.post(_path(audit), json={"obligation_key": row["obligation_key"],
                                                 "decision": "gap"})
    with pytest.raises(DBAPIError, match="permission denied"):
        async with container.database.tenant_session(alice.tenant_id) as session:
            await session.execute(text("UPDATE review_decisions SET decision = 'met'"))


async def test_a_later_audit_of_the_policy_carries_the_decision(
        alice: User, container: Container, audit: dict[str, str]) -> None:
    row = _with_quote(await _review(alice, audit))
    clause = row["candidates"][0]["quote"]
    met = await alice.client.post(_path(audit), json={
        "obligation_key": row["obligation_key"], "decision": "met", "clause": clause})
    assert met.status_code == 201, met.text

    later = await _audit_turn(alice, [audit["policy"], audit["rules"]])
    assert later != audit["conversation"]
    review = (await alice.client.get(f"/api/conversations/{later}/review")).json()
    [carried] = [r for r in review["rows"] if r["obligation_key"] == row["obligation_key"]]
    assert carried["decision"]["decision"] == "met" and carried["reopened"] is None
    assert carried["decision"]["conversation_id"] == audit["conversation"]
    assert review["progress"]["decided"] == 1

    # The next version of the policy (same title) no longer has the clause: it reopens.
    changed = POLICY.replace(clause.split()[-1], "reworded.")
    assert changed != POLICY
    revised = await _document(alice, container, changed, "policy.txt", "policy")
    newest = await _audit_turn(alice, [revised, audit["rules"]])
    review = (await alice.client.get(f"/api/conversations/{newest}/review")).json()
    assert document_key(review["policy_title"]) == "policy.txt"
    [reopened] = [r for r in review["rows"] if r["obligation_key"] == row["obligation_key"]]
    assert reopened["decision"]["decision"] == "met"
    assert reopened["reopened"] == "the clause it rested on is no longer in the policy"
    assert review["progress"]["decided"] == 0 and review["progress"]["reopened"] == 1
    assert UUID(review["conversation_id"]) != UUID(audit["conversation"])


MORE_RULES = """Test Client Rules

2. CLIENTS

2.1 Onboarding
2.1.1 A Relevant Person must verify the identity of each customer before opening an account.
2.1.2 A Relevant Person must screen each customer against the sanctions lists it subscribes
to before opening an account.
2.1.3 A Relevant Person must assess the risk of each customer and record the assessment.
"""
MORE_POLICY = """Wren Brokers Ltd - Onboarding Policy

1. Identity. The onboarding team checks each client's passport and proof of address before
the account is opened.

2. Risk. Every client gets a risk rating at onboarding, and the rating is recorded.
"""


async def test_a_model_proposes_and_its_proposal_is_labelled_and_verified(
        alice: User, container: Container) -> None:
    """The model's proposals on the queue (a scripted endpoint stands in for the remote
    model): a verified one is kept, labelled as the model's, and decides nothing; one that
    quotes words its candidate does not hold is dropped; an offline conversation is told it
    has no model."""
    rules = await _document(alice, container, MORE_RULES, "client-rules.txt", "regulation")
    policy = await _document(alice, container, MORE_POLICY, "onboarding.txt", "policy")
    conversation = await _audit_turn(alice, [policy, rules])
    audit = {"conversation": conversation, "message": await _answer(alice, conversation)}
    before = await _review(alice, audit)
    assert before["proposer"] is None  # the conversation answers offline: no model to ask
    todo = [r for r in before["rows"] if r["review"] in ("review", "likely_met")]
    assert len(todo) >= 2, [r["review"] for r in before["rows"]]
    first, second = todo[0], todo[1]
    quote = " ".join(first["candidates"][0]["quote"].split()[:4]) if first["candidates"] else None

    def answer(_: object) -> list[Item]:
        return json_reply({"rows": [
            {"row": 1, "status": "met" if quote else "missing", "candidate": 1 if quote else None,
             "quote": quote, "reason": "The clause restates the duty."},
            {"row": 2, "status": "met", "candidate": 1, "quote": "words nobody wrote",
             "reason": "Invented."}]})

    model = ScriptedChatModel([answer], model_name="endpoint-model")
    after = await container.review.propose(
        alice.tenant_id, UUID(audit["conversation"]), UUID(audit["message"]), model,
        timeout_s=30, limit=2)
    rows = {r.key: r for r in after.matrix.rows}
    kept, dropped = rows[first["obligation_key"]], rows[second["obligation_key"]]
    assert kept.proposed_by == "model: endpoint-model" and kept.reason.startswith(
        "endpoint-model proposes")
    assert kept.review == "review" and after.progress["decided"] == 0  # never a decision
    assert dropped.proposed_by == "engine" and dropped.reason == second["reason"]
    shown = await _review(alice, audit)  # kept with the audit
    [row] = [r for r in shown["rows"] if r["obligation_key"] == first["obligation_key"]]
    assert row["proposed_by"] == "model: endpoint-model"

    refused = await alice.client.post(_path(audit) + "/proposals")
    assert refused.status_code == 400 and "offline engine" in refused.json()["title"]
