"""``regintel bench load``: concurrent users chatting against a running server.

Set-up goes through the public API only, as a team's client would: an owner signs up, uploads
a small policy and waits until it is ready, then invites the other users, who join the same
organisation with bearer tokens (one account each, so per-user rate limits apply as they would
in production). Each user then asks questions about the policy back to back for the given
time. Reported: errors (non-200 answers other than 429, `error` events, streams without
`meta`); 429s apart (the per-user rate limit: each is waited out for its Retry-After, as a
client should); time to the first SSE event (what a user waits before seeing progress; the
API's `accepted` status when the pipeline is slow to start), time to the pipeline's own
first event, whole-turn time and throughput."""

from __future__ import annotations

import asyncio
import secrets
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from regintel.bench.metrics import percentile

POLICY = (b"Load Test Bank AML Policy\n\n1. Staff must report any suspicious transaction to "
          b"the MLRO within one business day.\n2. Customer identity must be verified before an "
          b"account is opened.\n3. Records shall be kept for six years.\n")
QUESTIONS = ("What must staff do about a suspicious transaction?",
             "How long must records be kept?",
             "When must customer identity be verified?")
TARGETS = {"errors": 0, "first_event_p95_ms": 500.0}


@dataclass
class _Tally:
    first_event_s: list[float] = field(default_factory=list)
    first_step_s: list[float] = field(default_factory=list)
    turn_s: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    throttled: int = 0  # 429 answers, waited out as a client should (not errors)


async def _setup(client: httpx.AsyncClient, users: int,
                 document: Path | None) -> tuple[list[str], str]:
    """Bearer tokens for ``users`` members of one fresh organisation, and the id of the
    document they ask about: ``document`` (a real rulebook, uploaded as a regulation) or the
    small built-in policy."""
    run = uuid.uuid4().hex[:8]
    password = secrets.token_urlsafe(18)  # throwaway accounts: nobody needs to log in again
    email = f"load-owner-{run}@bench.test"
    signed_up = await client.post("/api/auth/signup", json={
        "email": email, "password": password, "organisation": f"Load test {run}"})
    signed_up.raise_for_status()
    # Sign-up opens no session (it must not reveal existing accounts): sign in for the token.
    owner = await client.post("/api/auth/login", json={
        "email": email, "password": password, "session": "bearer"})
    owner.raise_for_status()
    auth = {"Authorization": f"Bearer {owner.json()['access_token']}"}
    if document is None:
        form, upload = {"title": "Load Test AML Policy", "doc_type": "policy"}, (
            "policy.txt", POLICY)
    else:
        form, upload = {"title": document.stem, "doc_type": "regulation"}, (
            document.name, await asyncio.to_thread(document.read_bytes))
    uploaded = await client.post("/api/documents", headers=auth, data=form,
                                 files={"file": upload})
    uploaded.raise_for_status()
    doc_id = uploaded.json()["document"]["id"]
    for _ in range(1200):  # the server's worker ingests it (a rulebook takes minutes)
        status = (await client.get(f"/api/documents/{doc_id}", headers=auth)).json()["status"]
        if status in ("ready", "failed"):
            break
        await asyncio.sleep(0.5)
    if status != "ready":
        raise RuntimeError(f"the bench policy did not become ready ({status})")
    tokens = [owner.json()["access_token"]]
    for i in range(users - 1):
        invited = await client.post("/api/invitations", headers=auth, json={
            "email": f"load-{run}-{i}@bench.test"})
        invited.raise_for_status()
        joined = await client.post("/api/invitations/accept", json={
            "token": invited.json()["token"], "password": password, "session": "bearer"})
        joined.raise_for_status()
        tokens.append(joined.json()["access_token"])
    return tokens, doc_id


async def _turn(client: httpx.AsyncClient, token: str, doc_id: str, question: str,
                tally: _Tally) -> float:
    """One chat turn; the seconds to wait before the next (a 429's Retry-After)."""
    started = time.perf_counter()
    first: float | None = None
    step: float | None = None
    saw_meta = False
    async with client.stream("POST", "/api/chat", headers={
            "Authorization": f"Bearer {token}"}, json={
            "message": question, "tagged_doc_ids": [doc_id], "use_memory": False}) as response:
        if response.status_code == 429:  # the per-user limit: wait as told, as a client would
            tally.throttled += 1
            return float(response.headers.get("Retry-After", "1"))
        if response.status_code != 200:
            tally.errors.append(f"HTTP {response.status_code}: {(await response.aread())[:200]!r}")
            return 0.0
        kind = ""
        async for line in response.aiter_lines():
            if line.startswith("data: ") and kind and step is None and not (
                    kind == "status" and '"accepted"' in line):
                step = time.perf_counter() - started  # the pipeline's own first event
            if not line.startswith("event: "):
                continue
            first = first if first is not None else time.perf_counter() - started
            kind = line[7:].strip()
            if kind == "error":
                tally.errors.append("error event")
            saw_meta = saw_meta or kind == "meta"
    if not saw_meta:
        tally.errors.append("stream ended without meta")
        return 0.0
    assert first is not None and step is not None
    tally.first_event_s.append(first)
    tally.first_step_s.append(step)
    tally.turn_s.append(time.perf_counter() - started)
    return 0.0


async def _user(client: httpx.AsyncClient, token: str, doc_id: str, deadline: float,
                offset: int, tally: _Tally) -> None:
    n = offset
    while time.perf_counter() < deadline:
        wait = 0.0
        try:
            wait = await _turn(client, token, doc_id, QUESTIONS[n % len(QUESTIONS)], tally)
        except httpx.HTTPError as exc:
            tally.errors.append(f"{type(exc).__name__}: {exc}")
        n += 1
        if wait:
            await asyncio.sleep(min(wait, max(0.0, deadline - time.perf_counter())))


async def run(base_url: str, *, users: int, seconds: float, document: Path | None = None,
              settle_s: float = 0.0,
              transport: httpx.AsyncBaseTransport | None = None) -> dict[str, Any]:
    """``transport`` lets a test drive an in-process app instead of a server."""
    limits = httpx.Limits(max_connections=users + 4, max_keepalive_connections=users + 4)
    timeout = httpx.Timeout(120.0)
    async with httpx.AsyncClient(base_url=base_url, transport=transport, limits=limits,
                                 timeout=timeout) as client:
        tokens, doc_id = await _setup(client, users, document)
        # A rulebook uploaded earlier in the day has its follow-up jobs (audit units, answer
        # sentences, obligation register) done; without a settle they compete with the users.
        await asyncio.sleep(settle_s)
        tally = _Tally()
        started = time.perf_counter()
        deadline = started + seconds
        await asyncio.gather(*(_user(client, token, doc_id, deadline, i, tally)
                               for i, token in enumerate(tokens)))
        elapsed = time.perf_counter() - started
    turns = len(tally.turn_s)
    ms = 1000.0
    return {
        "users": users, "document": document.name if document else "built-in policy",
        "settle_s": settle_s,
        "seconds": round(elapsed, 1), "turns": turns,
        "errors": len(tally.errors), "error_samples": sorted(set(tally.errors))[:5],
        "throttled": tally.throttled,
        "throughput_turns_per_s": round(turns / elapsed, 2) if elapsed else 0.0,
        "first_event_p50_ms": round(percentile(tally.first_event_s, 50) * ms, 1)
        if turns else None,
        "first_event_p95_ms": round(percentile(tally.first_event_s, 95) * ms, 1)
        if turns else None,
        "first_step_p95_ms": round(percentile(tally.first_step_s, 95) * ms, 1)
        if turns else None,
        "turn_p50_ms": round(percentile(tally.turn_s, 50) * ms, 1) if turns else None,
        "turn_p95_ms": round(percentile(tally.turn_s, 95) * ms, 1) if turns else None,
        "targets": TARGETS,
    }


def table_rows(figures: dict[str, Any]) -> list[list[Any]]:
    keys = ("users", "document", "settle_s", "seconds", "turns", "errors", "throttled",
            "throughput_turns_per_s",
            "first_event_p50_ms", "first_event_p95_ms", "first_step_p95_ms", "turn_p50_ms",
            "turn_p95_ms")
    return [[key, figures[key]] for key in keys]
