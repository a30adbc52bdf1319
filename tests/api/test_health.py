from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI

from regintel.api.app import create_app
from regintel.settings import Settings


@pytest.fixture
async def app(settings: Settings) -> AsyncIterator[FastAPI]:
    application = create_app(settings, run_worker=False)
    async with application.router.lifespan_context(application):
        yield application


async def test_healthz_reports_every_store_ok(app: FastAPI) -> None:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["db"] == "ok" and body["graph"] == "ok" and body["queue"] == "ok"
    assert body["llm"] == "off"  # no local model configured (see tests/chat/local_model)
    assert body["status"] == "ok"


async def test_openapi_document_is_served(app: FastAPI) -> None:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.get("/openapi.json")
    assert response.status_code == 200
    assert "/healthz" in response.json()["paths"]
