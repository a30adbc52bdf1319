"""Property-based fuzzing of every operation in the OpenAPI document, authenticated with a
bearer token: whatever schemathesis sends, the API never answers 5xx.

Hypothesis drives each operation from a worker thread; every generated request is sent on
the test's own event loop (where the app's pools live) through the in-process transport.
Bounded by a few examples per operation so the suite stays fast; derandomized, so a failure
reproduces."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import schemathesis
from fastapi import FastAPI
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.core.result import Ok

from tests.api.conftest import PASSWORD, User, client_for

EXAMPLES = 8
SLOW_EXAMPLES = {"POST /api/chat": 3, "POST /api/documents": 5}  # each runs a real turn/upload
# Logging out would revoke the token the rest of the run uses.
SKIP = {"POST /api/auth/logout"}


def _files(raw: list[tuple[str, tuple[str | None, Any]]]) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for name, (filename, value) in raw:
        content = value if isinstance(value, bytes) else str(value)
        out.append((name, (filename, content) if filename is not None else (None, content)))
    return out


async def test_no_operation_answers_5xx(api_app: FastAPI, alice: User) -> None:
    async with client_for(api_app) as anon:
        login = await anon.post("/api/auth/login", json={
            "email": alice.email, "password": PASSWORD, "session": "bearer"})
    token = login.json()["access_token"]
    schema = schemathesis.openapi.from_dict(api_app.openapi())
    results = list(schema.get_all_operations())
    operations = [result.ok() for result in results if isinstance(result, Ok)]
    assert len(operations) == len(results)  # the document itself is valid
    loop = asyncio.get_running_loop()
    failures: list[str] = []
    sent = 0

    async def send(client: httpx.AsyncClient, kwargs: dict[str, Any]) -> httpx.Response:
        headers = {k: v for k, v in kwargs["headers"].items()
                   if k.lower() not in ("authorization", "cookie")}
        headers["Authorization"] = f"Bearer {token}"
        files = _files(kwargs["files"]) if kwargs.get("files") else None
        return await client.request(
            kwargs["method"], kwargs["url"], params=kwargs.get("params"), headers=headers,
            json=kwargs.get("json"), data=kwargs.get("data"), files=files)

    # A crash must come back as a 500 to count, not as an exception in the transport.
    transport = httpx.ASGITransport(app=api_app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        def fuzz(operation: Any) -> None:
            @settings(max_examples=SLOW_EXAMPLES.get(operation.label, EXAMPLES), deadline=None,
                      database=None, derandomize=True, phases=[Phase.generate],
                      suppress_health_check=list(HealthCheck))
            @given(operation.as_strategy())
            def check(case: Any) -> None:
                nonlocal sent
                kwargs = case.as_transport_kwargs(base_url="http://test")
                try:
                    response = asyncio.run_coroutine_threadsafe(
                        send(client, kwargs), loop).result(timeout=300)
                except (httpx.LocalProtocolError, UnicodeEncodeError, ValueError, TypeError):
                    return  # not expressible as an HTTP request by the client library
                sent += 1
                if response.status_code >= 500:
                    failures.append(f"{operation.label} {kwargs!r} -> "
                                    f"{response.status_code} {response.text[:300]}")

            check()

        for operation in operations:
            if operation.label not in SKIP:
                await asyncio.to_thread(fuzz, operation)
    assert sent > len(operations) * 2
    assert not failures, "\n".join(failures[:10])
