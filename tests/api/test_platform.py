"""The API as a whole: its OpenAPI document, problem responses, rate limits, CORS."""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter

import httpx
import pytest
from fastapi import FastAPI

from regintel.adapters.postgres.database import Database
from regintel.api.app import create_app
from regintel.api.errors import RateLimited
from regintel.api.ratelimit import RateLimiter
from regintel.settings import ApiSettings, Settings
from tests.api.conftest import User, upload


async def test_openapi_document_is_clean(anon: httpx.AsyncClient) -> None:
    document = (await anon.get("/openapi.json")).json()
    operations = [(path, method, op) for path, item in document["paths"].items()
                  for method, op in item.items()]
    ids = Counter(op["operationId"] for _, _, op in operations)
    assert all(count == 1 for count in ids.values()), ids
    # Hand-picked ids, not FastAPI's generated "name_path_method" ones.
    assert not [i for i in ids if i.endswith(("_get", "_post", "_put", "_patch", "_delete"))]
    assert all(op.get("tags") for _, _, op in operations)
    for path, method, op in operations:
        success = [code for code in op["responses"] if code.startswith("2")]
        assert success, (method, path)
    schemes = document["components"]["securitySchemes"]
    assert {"HTTPBearer", "APIKeyCookie"} <= set(schemes)


async def test_unknown_route_and_method_are_problems(anon: httpx.AsyncClient) -> None:
    missing = await anon.get("/api/nothing-here")
    assert missing.status_code == 404
    assert missing.headers["content-type"] == "application/problem+json"
    wrong = await anon.put("/healthz")
    assert wrong.status_code == 405 and wrong.json()["status"] == 405


async def test_token_bucket_refills_at_its_rate(database: Database) -> None:
    limiter = RateLimiter(ApiSettings(chat_per_minute=60, chat_burst=2))
    user = uuid.uuid4()
    await limiter.take(database, "chat", user)
    await limiter.take(database, "chat", user)
    with pytest.raises(RateLimited) as refused:
        await limiter.take(database, "chat", user)
    assert 0.5 < refused.value.retry_after_s <= 1.0
    await asyncio.sleep(refused.value.retry_after_s + 0.05)
    await limiter.take(database, "chat", user)  # one token back after a second at 60/min
    await limiter.take(database, "upload", user)  # buckets are per kind…
    await limiter.take(database, "chat", uuid.uuid4())  # …and per user


async def test_uploads_are_rate_limited_per_user(api_app: FastAPI, alice: User,
                                                 mallory: User) -> None:
    saved = api_app.state.limiter
    api_app.state.limiter = RateLimiter(ApiSettings(upload_per_minute=1, upload_burst=1))
    try:
        assert (await upload(alice, b"A firm must report.", "a.txt")).status_code == 201
        refused = await upload(alice, b"A firm must keep records.", "b.txt")
        assert refused.status_code == 429 and refused.json()["code"] == "rate_limited"
        assert int(refused.headers["retry-after"]) >= 1
        other = await upload(mallory, b"A firm must keep records.", "b.txt")
        assert other.status_code == 201
    finally:
        api_app.state.limiter = saved


async def test_cors_opens_only_to_configured_origins(settings: Settings) -> None:
    configured = settings.model_copy(update={
        "api": ApiSettings(cors_origins=["https://app.example"])})
    app = create_app(configured, run_worker=False)  # preflights never reach the routes
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        preflight = {"Access-Control-Request-Method": "POST",
                     "Access-Control-Request-Headers": "content-type,x-csrf-token"}
        allowed = await client.options("/api/chat", headers={
            "Origin": "https://app.example", **preflight})
        assert allowed.headers["access-control-allow-origin"] == "https://app.example"
        assert allowed.headers["access-control-allow-credentials"] == "true"
        other = await client.options("/api/chat", headers={
            "Origin": "https://evil.example", **preflight})
        assert "access-control-allow-origin" not in other.headers
