"""Account protection (issue 34): sign-in and sign-up throttles in Postgres, refused weak
passwords, and the throttle table's own hygiene (keyed hashes, pruning, back-off)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import statistics
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import text

from regintel.adapters.postgres.database import Database
from regintel.adapters.postgres.throttle_repo import AttemptRule, PostgresThrottles
from regintel.container import Container
from tests.api.conftest import PASSWORD, User, new_email
from tests.conftest import TEST_SECRET

WRONG = "not the password at all"


@contextlib.contextmanager
def tuned(app: FastAPI, **api: Any) -> Iterator[None]:
    """The session's app with other API settings for one test (read per request)."""
    saved = app.state.settings
    app.state.settings = saved.model_copy(update={"api": saved.api.model_copy(update=api)})
    try:
        yield
    finally:
        app.state.settings = saved


@contextlib.asynccontextmanager
async def client_from(app: FastAPI, address: str | None = None) -> AsyncIterator[
        httpx.AsyncClient]:
    """A client calling from an address of its own, so counters of other tests do not mix."""
    address = address or f"10.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}.7"
    transport = httpx.ASGITransport(app=app, client=(address, 40000))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        yield client


async def _login(client: httpx.AsyncClient, email: str, password: str,
                 **headers: str) -> tuple[httpx.Response, float]:
    started = time.perf_counter()
    response = await client.post("/api/auth/login", json={"email": email, "password": password},
                                 headers=headers)
    return response, time.perf_counter() - started


# -- passwords -------------------------------------------------------------------------------
@pytest.mark.parametrize(("password", "because"), [
    ("password", "top-10 common password"),
    ("12345678", "top-10 common password"),
    (" " * 8, 'Repeats like "aaa" are easy to guess'),
    ("Acme2024", "too weak"),
    ("short", "at least 8 characters"),
])
async def test_weak_passwords_are_refused_with_the_reason(
        api_app: FastAPI, password: str, because: str) -> None:
    email = new_email()
    async with client_from(api_app) as client:
        response = await client.post("/api/auth/signup", json={
            "email": email, "password": password, "organisation": "Acme"})
        assert response.status_code == 422, response.text
        assert response.json()["code"] == "validation_error"
        assert because in response.json()["hint"]
        assert "password" in response.json()["hint"]
        # Nothing was created: the strong password of a real sign-up works afterwards.
        assert (await _login(client, email, password))[0].status_code == 401


async def test_a_password_made_of_the_users_own_details_is_weak(api_app: FastAPI) -> None:
    async with client_from(api_app) as client:
        response = await client.post("/api/auth/signup", json={
            "email": "falconbank@example.test", "password": "falconbank",
            "organisation": "Falcon Bank"})
    assert response.status_code == 422 and "too weak" in response.json()["hint"]


async def test_a_new_account_by_invitation_needs_a_strong_password(
        api_app: FastAPI, alice: User) -> None:
    token = (await alice.client.post("/api/invitations", json={
        "email": new_email("bob")})).json()["token"]
    async with client_from(api_app) as client:
        weak = await client.post("/api/invitations/accept", json={
            "token": token, "password": "password"})
        assert weak.status_code == 400 and weak.json()["code"] == "weak_password"
        assert "common password" in weak.json()["title"]
        ok = await client.post("/api/invitations/accept", json={
            "token": token, "password": PASSWORD})
        assert ok.status_code == 200, ok.text


# -- sign-in ---------------------------------------------------------------------------------
async def test_brute_force_is_refused_before_hashing_and_the_owner_gets_back_in(
        api_app: FastAPI, alice: User, container: Container) -> None:
    statuses: list[int] = []
    hashed: list[float] = []
    throttled: list[float] = []
    with tuned(api_app, login_failures_per_account=10, login_window_s=60, login_backoff_s=2):
        async with client_from(api_app) as client:
            for _ in range(10):
                response, took = await _login(client, alice.email, WRONG)
                statuses.append(response.status_code)
                hashed.append(took)
            eleventh, took = await _login(client, alice.email, WRONG)
            statuses.append(eleventh.status_code)
            throttled.append(took)
            assert statuses == [401] * 10 + [429], statuses
            assert eleventh.json()["code"] == "rate_limited"
            assert 1 <= int(eleventh.headers["retry-after"]) <= 2
            # While blocked even the right password is refused: it is never looked at.
            for password in (WRONG, PASSWORD, WRONG, PASSWORD, WRONG):
                response, took = await _login(client, alice.email, password)
                statuses.append(response.status_code)
                throttled.append(took)
                assert response.status_code == 429
            # The block is on the account, so it holds from any other address too.
            async with client_from(api_app) as other:
                assert (await _login(other, alice.email, PASSWORD))[0].status_code == 429
            await asyncio.sleep(2.1)
            good, _ = await _login(client, alice.email, PASSWORD)
            statuses.append(good.status_code)
            assert good.status_code == 200
            # A good sign-in resets the account's count: ten more failures are 401 again.
            again = [(await _login(client, alice.email, WRONG))[0].status_code
                     for _ in range(10)]
            assert again == [401] * 10
    p50_hashed, p50_throttled = statistics.median(hashed), statistics.median(throttled)
    print(f"\nbrute force on one account: {len(statuses)} attempts, statuses {statuses}; "
          f"p50 {p50_hashed * 1000:.1f} ms verified (Argon2) vs "
          f"{p50_throttled * 1000:.1f} ms throttled")
    assert p50_throttled < p50_hashed  # a throttled attempt costs no hashing


async def test_failures_per_address_are_limited_across_accounts(api_app: FastAPI) -> None:
    with tuned(api_app, login_failures_per_address=3):
        async with client_from(api_app, "203.0.113.9") as client:
            first = [(await _login(client, new_email(), WRONG))[0].status_code
                     for _ in range(4)]
        async with client_from(api_app, "203.0.113.10") as client:
            elsewhere = (await _login(client, new_email(), WRONG))[0].status_code
    assert first == [401, 401, 401, 429] and elsewhere == 401


async def test_forwarded_for_counts_only_behind_a_trusted_proxy(api_app: FastAPI) -> None:
    async with client_from(api_app, "198.51.100.1") as proxy:
        with tuned(api_app, login_failures_per_address=2):
            # Not trusted: a client cannot dodge the limit by inventing addresses.
            spoofed = [(await _login(proxy, new_email(), WRONG,
                                     **{"X-Forwarded-For": f"192.0.2.{i}"}))[0].status_code
                       for i in range(3)]
        with tuned(api_app, login_failures_per_address=2, trust_forwarded_for=True):
            # Trusted: the entry the proxy appended (the last) is the client.
            behind = [(await _login(proxy, new_email(), WRONG, **{
                "X-Forwarded-For": f"192.0.2.{i}, 192.0.2.200"}))[0].status_code
                for i in range(3)]
            other = (await _login(proxy, new_email(), WRONG,
                                  **{"X-Forwarded-For": "192.0.2.201"}))[0].status_code
    assert spoofed == [401, 401, 429]
    assert behind == [401, 401, 429] and other == 401


async def test_the_table_holds_keyed_hashes_not_e_mails(
        api_app: FastAPI, container: Container) -> None:
    email = new_email("hashed")
    async with client_from(api_app, "192.0.2.77") as client:
        assert (await _login(client, email.upper(), WRONG))[0].status_code == 401
    async with container.database.system_session() as session:
        rows = (await session.execute(text(
            "SELECT scope, subject FROM auth_throttles"))).all()
    assert not [r for r in rows if "@" in r.subject or "192.0.2.77" in r.subject]
    expected = hmac.new(TEST_SECRET.encode(), f"login_account:{email}".encode(),
                        hashlib.sha256).hexdigest()
    assert ("login_account", expected) in {(r.scope, r.subject) for r in rows}


# -- sign-up ---------------------------------------------------------------------------------
async def test_sign_ups_per_address_are_limited_alike_for_known_and_new_e_mails(
        api_app: FastAPI, alice: User) -> None:
    with tuned(api_app, signups_per_address=2):
        async with client_from(api_app) as client:
            answers = [await client.post("/api/auth/signup", json={
                "email": email, "password": PASSWORD})
                for email in (new_email(), alice.email, new_email(), alice.email)]
    assert [a.status_code for a in answers] == [202, 202, 429, 429]
    assert answers[0].json() == answers[1].json()
    assert answers[2].json() == answers[3].json()
    assert int(answers[2].headers["retry-after"]) > 500  # the sign-up window, 10 minutes


# -- the store itself -------------------------------------------------------------------------
async def test_back_off_doubles_up_to_its_cap_and_clearing_forgets(database: Database) -> None:
    store = PostgresThrottles(database)
    rule = AttemptRule(limit=2, window_s=60, backoff_s=0.5, backoff_max_s=1.2)

    async def round_of_attempts() -> list[float]:
        return [await store.attempt("login_account", "s", rule) for _ in range(4)]

    first = await round_of_attempts()
    assert first[:2] == [0.0, 0.0] and 0.3 < first[2] <= 0.5 and 0 < first[3] <= first[2]
    await asyncio.sleep(first[2] + 0.05)
    second = await round_of_attempts()
    assert second[:2] == [0.0, 0.0] and 0.8 < second[2] <= 1.0  # doubled
    await asyncio.sleep(second[2] + 0.05)
    third = await round_of_attempts()
    assert third[:2] == [0.0, 0.0] and 1.0 < third[2] <= 1.2  # capped, not 2.0
    await store.clear("login_account", "s")
    assert (await round_of_attempts())[2] <= 0.5  # strikes forgotten


async def test_prune_drops_idle_rows_but_keeps_live_blocks(database: Database) -> None:
    store = PostgresThrottles(database)
    rule = AttemptRule(limit=1, window_s=60, backoff_s=60, backoff_max_s=60)
    await store.attempt("login_account", "idle", rule)
    for _ in range(2):
        await store.attempt("login_account", "blocked", rule)
    await store.take("chat", "user", per_s=1.0, burst=2)
    await asyncio.sleep(0.05)
    await store.prune(throttle_horizon_s=0.01, bucket_horizon_s=0.01)
    async with database.system_session() as session:
        left = (await session.execute(text("SELECT subject FROM auth_throttles"))).scalars()
        buckets = (await session.execute(text("SELECT count(*) FROM rate_buckets"))).scalar()
        assert list(left) == ["blocked"] and buckets == 0
