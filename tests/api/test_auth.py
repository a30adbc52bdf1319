"""Sign-up, login, logout, CSRF, bearer tokens, onboarding, invitations."""

from __future__ import annotations

import httpx
from fastapi import FastAPI
from sqlalchemy import text

from regintel.api import errors, security
from regintel.container import Container
from regintel.settings import Settings
from tests.api.conftest import PASSWORD, User, client_for, new_email, sign_up


async def test_sign_up_then_login_sets_http_only_lax_cookie_and_me_needs_onboarding(
        api_app: FastAPI) -> None:
    email = new_email()
    async with client_for(api_app) as client:
        response = await client.post("/api/auth/signup", json={
            "email": email, "password": PASSWORD, "organisation": "Acme"})
        assert response.status_code == 202, response.text
        assert "set-cookie" not in response.headers  # sign-up opens no session
        assert (await client.get("/api/me")).status_code == 401
        response = await client.post("/api/auth/login", json={
            "email": email, "password": PASSWORD})
        assert response.status_code == 200, response.text
        cookies = response.headers.get_list("set-cookie")
        session = next(c for c in cookies if c.startswith("regintel_session="))
        csrf = next(c for c in cookies if c.startswith("regintel_csrf="))
        assert "HttpOnly" in session and "SameSite=lax" in session and "Path=/" in session
        assert "HttpOnly" not in csrf
        assert "access_token" not in response.json() or response.json()["access_token"] is None
        me = (await client.get("/api/me")).json()
        assert me["role"] == "owner" and me["tenant_name"] == "Acme"
        assert me["onboarding_complete"] is False
        assert me["csrf_token"] == response.json()["csrf_token"]


async def test_onboarding_profile_completes_with_company_country_industry(
        alice: User) -> None:
    response = await alice.client.put("/api/me/profile", json={
        "company": "Acme Bank", "country": "AE", "industry": "Banking", "description": ""})
    assert response.status_code == 200, response.text
    me = response.json()
    assert me["onboarding_complete"] is True and me["profile"]["industry"] == "Banking"
    partial = await alice.client.put("/api/me/profile", json={
        "company": "Acme Bank", "country": "", "industry": "Banking"})
    assert partial.json()["onboarding_complete"] is False


async def test_unsafe_cookie_request_without_csrf_header_is_refused(alice: User) -> None:
    token = alice.client.headers.pop("X-CSRF-Token")
    refused = await alice.client.post("/api/conversations", json={"title": "x"})
    assert refused.status_code == 403
    assert refused.headers["content-type"] == "application/problem+json"
    assert refused.json()["code"] == "csrf_rejected"
    forged = await alice.client.post("/api/conversations", json={"title": "x"},
                                     headers={"X-CSRF-Token": "0" * 64})
    assert forged.status_code == 403
    assert (await alice.client.get("/api/conversations")).status_code == 200  # safe: allowed
    ok = await alice.client.post("/api/conversations", json={"title": "x"},
                                 headers={"X-CSRF-Token": token})
    assert ok.status_code == 201


async def test_login_logout_and_wrong_password(api_app: FastAPI, alice: User) -> None:
    async with client_for(api_app) as client:
        wrong = await client.post("/api/auth/login", json={"email": alice.email,
                                                           "password": "not the password"})
        assert wrong.status_code == 401 and wrong.json()["code"] == "authentication_required"
        unknown = await client.post("/api/auth/login", json={"email": new_email(),
                                                             "password": PASSWORD})
        assert unknown.status_code == 401 and unknown.json()["title"] == wrong.json()["title"]
        ok = await client.post("/api/auth/login", json={"email": alice.email.upper(),
                                                        "password": PASSWORD})
        assert ok.status_code == 200
        client.headers["X-CSRF-Token"] = ok.json()["csrf_token"]
        assert (await client.get("/api/me")).status_code == 200
        session = client.cookies["regintel_session"]
        assert (await client.post("/api/auth/logout")).status_code == 204
        # The old cookie no longer works, even if a client keeps sending it.
        client.cookies.set("regintel_session", session)
        assert (await client.get("/api/me")).status_code == 401


async def test_sign_up_does_not_reveal_an_existing_account(
        api_app: FastAPI, alice: User) -> None:
    async with client_for(api_app) as client:
        known = await client.post("/api/auth/signup", json={
            "email": alice.email.upper(), "password": "a different, long passphrase"})
        fresh = await client.post("/api/auth/signup", json={
            "email": new_email(), "password": "a different, long passphrase"})
        # Same status, same body, no session either way: nothing tells the two apart.
        assert known.status_code == fresh.status_code == 202
        assert known.json() == fresh.json() and "sign in" in known.json()["message"]
        assert "set-cookie" not in known.headers and "set-cookie" not in fresh.headers
        # The existing account is untouched: its own password still works, the new one not.
        taken = await client.post("/api/auth/login", json={
            "email": alice.email, "password": "a different, long passphrase"})
        assert taken.status_code == 401
        assert taken.json()["title"] == "the e-mail or password is wrong"
        mine = await client.post("/api/auth/login", json={
            "email": alice.email, "password": PASSWORD})
        assert mine.status_code == 200
        assert mine.json()["tenant_id"] == str(alice.tenant_id)


async def test_bearer_token_for_api_clients(api_app: FastAPI, alice: User) -> None:
    async with client_for(api_app) as client:
        login = await client.post("/api/auth/login", json={
            "email": alice.email, "password": PASSWORD, "session": "bearer"})
        body = login.json()
        assert body["token_type"] == "bearer" and body["access_token"]
        assert "set-cookie" not in login.headers
    async with client_for(api_app) as client:
        headers = {"Authorization": f"Bearer {body['access_token']}"}
        # No CSRF needed: a bearer token is never sent by the browser on its own.
        created = await client.post("/api/conversations", json={"title": "t"}, headers=headers)
        assert created.status_code == 201
        # A cookie session's token cannot be replayed as a bearer (it would dodge CSRF).
        cookie_token = alice.client.cookies["regintel_session"]
        replay = await client.get("/api/me", headers={"Authorization": f"Bearer {cookie_token}"})
        assert replay.status_code == 401


async def test_not_signed_in_is_401_problem(anon: httpx.AsyncClient) -> None:
    response = await anon.get("/api/documents")
    assert response.status_code == 401
    assert response.headers["content-type"] == "application/problem+json"


async def test_tenant_comes_from_session_not_request(alice: User, mallory: User) -> None:
    # A tenant id in the body is not a field at all; in the query it is ignored.
    refused = await alice.client.post("/api/conversations", json={
        "title": "x", "tenant_id": str(mallory.tenant_id)})
    assert refused.status_code == 422
    created = await alice.client.post(f"/api/conversations?tenant_id={mallory.tenant_id}",
                                      json={"title": "mine"})
    assert created.status_code == 201
    listed = (await mallory.client.get("/api/conversations")).json()
    assert listed["count"] == 0
    mine = (await alice.client.get(f"/api/conversations?tenant_id={mallory.tenant_id}")).json()
    assert [c["title"] for c in mine["data"]] == ["mine"]


async def test_owner_invites_member_who_joins_the_same_tenant(
        api_app: FastAPI, alice: User) -> None:
    email = new_email("bob")
    invited = await alice.client.post("/api/invitations", json={"email": email})
    assert invited.status_code == 201, invited.text
    token = invited.json()["token"]
    pending = (await alice.client.get("/api/invitations")).json()
    assert pending["count"] == 1 and "token" not in pending["data"][0]
    async with client_for(api_app) as client:
        joined = await client.post("/api/invitations/accept", json={
            "token": token, "password": PASSWORD, "display_name": "Bob"})
        assert joined.status_code == 200, joined.text
        assert joined.json()["tenant_id"] == str(alice.tenant_id)
        assert joined.json()["role"] == "member"
        client.headers["X-CSRF-Token"] = joined.json()["csrf_token"]
        # A member cannot invite, and the token cannot be used twice.
        assert (await client.post("/api/invitations", json={
            "email": new_email()})).status_code == 403
        reused = await client.post("/api/invitations/accept", json={
            "token": token, "password": PASSWORD})
        assert reused.status_code == 404
    members = (await alice.client.get("/api/members")).json()
    assert sorted(m["role"] for m in members["data"]) == ["member", "owner"]


async def test_existing_account_accepts_with_its_password(
        api_app: FastAPI, alice: User, mallory: User) -> None:
    invited = await alice.client.post("/api/invitations", json={"email": mallory.email})
    token = invited.json()["token"]
    async with client_for(api_app) as client:
        wrong = await client.post("/api/invitations/accept", json={
            "token": token, "password": "another password"})
        assert wrong.status_code == 401
        ok = await client.post("/api/invitations/accept", json={
            "token": token, "password": PASSWORD})
        assert ok.status_code == 200 and ok.json()["tenant_id"] == str(alice.tenant_id)


async def test_security_headers_on_every_response(anon: httpx.AsyncClient) -> None:
    for path in ("/healthz", "/api/me", "/openapi.json"):
        headers = (await anon.get(path)).headers
        assert "frame-ancestors 'none'" in headers["content-security-policy"]
        assert "default-src 'self'" in headers["content-security-policy"]
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "same-origin"
    assert (await anon.get("/api/me")).headers["cache-control"] == "no-store"


async def test_an_unexpected_error_is_a_plain_500_with_the_security_headers(
        api_settings: Settings) -> None:
    app = FastAPI()
    errors.install(app)
    security.install(app, api_settings.api)

    @app.get("/api/boom")
    async def boom() -> None:
        raise RuntimeError("database password is hunter2")

    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.get("/api/boom")
    assert response.status_code == 500
    assert response.json()["code"] == "internal_error" and "hunter2" not in response.text
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["cache-control"] == "no-store"


async def test_cors_closed_by_default(anon: httpx.AsyncClient) -> None:
    response = await anon.get("/healthz", headers={"Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in response.headers


async def test_second_sign_up_makes_a_new_tenant(api_app: FastAPI, alice: User) -> None:
    other = await sign_up(api_app)
    try:
        assert other.tenant_id != alice.tenant_id
    finally:
        await other.client.aclose()


async def test_roles_revocation_and_expiry(api_app: FastAPI, alice: User,
                                           container: Container) -> None:
    invited = (await alice.client.post("/api/invitations", json={
        "email": new_email("admin"), "role": "admin"})).json()
    revoked = (await alice.client.post("/api/invitations", json={"email": new_email()})).json()
    assert (await alice.client.delete(f"/api/invitations/{revoked['id']}")).status_code == 204
    async with client_for(api_app) as client:
        gone = await client.post("/api/invitations/accept", json={
            "token": revoked["token"], "password": PASSWORD})
        assert gone.status_code == 404
        joined = (await client.post("/api/invitations/accept", json={
            "token": invited["token"], "password": PASSWORD})).json()
        assert joined["role"] == "admin"
        client.headers["X-CSRF-Token"] = joined["csrf_token"]
        # An admin invites members, but only the owner makes admins.
        assert (await client.post("/api/invitations", json={
            "email": new_email()})).status_code == 201
        assert (await client.post("/api/invitations", json={
            "email": new_email(), "role": "admin"})).status_code == 403
    async with container.database.system_session() as session:
        await session.execute(text(
            "UPDATE auth_sessions SET expires_at = now() - interval '1 second' "
            "WHERE user_id = :u"), {"u": alice.user_id})
    assert (await alice.client.get("/api/me")).status_code == 401
