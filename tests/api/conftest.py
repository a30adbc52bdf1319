"""One API app for the API tests, on a throwaway migrated database and the session's embedded
stores, driven in-process through httpx's ASGI transport. Tests isolate themselves by signing
up users (and so tenants) of their own."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

import httpx
import pytest
from fastapi import FastAPI
from pydantic import SecretStr

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.api.app import create_app
from regintel.container import Container
from regintel.domain.documents import DocStatus
from regintel.runtime.postgres import PostgresEndpoint
from regintel.settings import Settings
from tests.conftest import TEMPLATE_DB, TEST_SECRET, _throwaway_database

PASSWORD = "correct horse battery staple"
MAX_UPLOAD = 2 * 1024 * 1024  # small, so oversize tests stay cheap

POLICY_TEXT = """Falcon Test Bank Anti-Money Laundering Policy

1. Customer due diligence. The firm must identify and verify every customer before opening an
account. Enhanced due diligence is required for politically exposed persons.

2. Suspicious activity. Staff must report any suspicious transaction to the Money Laundering
Reporting Officer within one business day. The MLRO shall file a suspicious activity report
with the Financial Intelligence Unit without delay.

3. Record keeping. Records of customer identification shall be kept for at least six years
after the business relationship ends.
"""


@pytest.fixture(scope="session")
def api_db_url(pg_endpoint: PostgresEndpoint) -> Iterator[str]:
    yield from _throwaway_database(pg_endpoint, TEMPLATE_DB)


@pytest.fixture(scope="session")
def api_settings(data_dir: Path, api_db_url: str) -> Settings:
    return Settings(data_dir=data_dir, database_url=SecretStr(api_db_url),
                    secret_key=SecretStr(TEST_SECRET),
                    upload={"max_bytes": MAX_UPLOAD},
                    # Refusals always as plain 4xx here (test_slow_start_… covers the rest).
                    api={"chat_burst": 50, "upload_burst": 50, "first_event_wait_ms": 30_000,
                         # Every test signs up from the same address; test_throttles.py
                         # checks the real limits on apps of its own.
                         "signups_per_address": 100_000})


@pytest.fixture(scope="session")
async def api_app(api_settings: Settings, embedder: LocalEmbedder) -> AsyncIterator[FastAPI]:
    application = create_app(api_settings, run_worker=False, embedder=embedder)
    async with application.router.lifespan_context(application):
        yield application


@pytest.fixture
def container(api_app: FastAPI) -> Container:
    found: Container = api_app.state.container
    return found


def client_for(app: FastAPI) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test")


@pytest.fixture
async def anon(api_app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with client_for(api_app) as client:
        yield client


@dataclass
class User:
    """A signed-in browser: cookies in the client, the CSRF header set on it."""

    client: httpx.AsyncClient
    email: str
    user_id: UUID
    tenant_id: UUID


def new_email(prefix: str = "user") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}@example.test"


async def sign_up(app: FastAPI, email: str | None = None, **extra: Any) -> User:
    client = client_for(app)
    email = email or new_email()
    response = await client.post("/api/auth/signup", json={
        "email": email, "password": PASSWORD, "organisation": "Acme", **extra})
    assert response.status_code == 202, response.text
    # Sign-up opens no session (it answers alike for known e-mails): sign in, as the UI does.
    response = await client.post("/api/auth/login", json={"email": email, "password": PASSWORD})
    assert response.status_code == 200, response.text
    body = response.json()
    client.headers["X-CSRF-Token"] = body["csrf_token"]
    return User(client, email, UUID(body["user_id"]), UUID(body["tenant_id"]))


@pytest.fixture
async def alice(api_app: FastAPI) -> AsyncIterator[User]:
    user = await sign_up(api_app)
    yield user
    await user.client.aclose()


@pytest.fixture
async def mallory(api_app: FastAPI) -> AsyncIterator[User]:
    """A user of another tenant."""
    user = await sign_up(api_app, new_email("mallory"))
    yield user
    await user.client.aclose()


async def upload(user: User, data: bytes, filename: str, *, title: str = "Test Policy",
                 doc_type: str = "policy", **fields: str) -> httpx.Response:
    return await user.client.post("/api/documents", data={
        "title": title, "doc_type": doc_type, **fields}, files={"file": (filename, data)})


async def ingest(container: Container, user: User, document_id: str) -> dict[str, Any]:
    """Run the queued ingestion job in this process and return the document as the API
    shows it."""
    [document] = await container.ingestion.run_until_done(
        user.tenant_id, [UUID(document_id)], timeout_s=120)
    assert document.status in (DocStatus.READY, DocStatus.FAILED)
    response = await user.client.get(f"/api/documents/{document_id}")
    assert response.status_code == 200
    body: dict[str, Any] = response.json()
    return body


def sse_events(body: str) -> list[tuple[str, Any]]:
    import json

    events: list[tuple[str, Any]] = []
    for block in body.strip().split("\n\n"):
        kind, data = "", ""
        for line in block.splitlines():
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                data += line[6:]
        events.append((kind, json.loads(data)))
    return events
