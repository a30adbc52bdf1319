"""A real server and a real browser for the end-to-end tests.

The app runs under uvicorn on a free loopback port, in a thread of its own (its own event
loop), on a throwaway migrated database and the session's embedded stores, with the in-process
worker so uploads really get ingested. The browser is Debian's Chromium driven headless by
Playwright (never a downloaded browser); the tests are skipped only when it is missing."""

from __future__ import annotations

import shutil
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import uvicorn
from playwright.async_api import Browser, async_playwright
from pydantic import SecretStr

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.api.app import create_app
from regintel.runtime.postgres import PostgresEndpoint
from regintel.settings import Settings
from tests.conftest import TEMPLATE_DB, TEST_SECRET, _throwaway_database

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"
needs_chromium = pytest.mark.skipif(
    shutil.which(str(CHROMIUM)) is None,
    reason=f"{CHROMIUM} is missing: install Debian's chromium (scripts/bootstrap.sh does so "
    "when run as root) to run the browser tests")


@pytest.fixture(scope="package")  # stopped when the e2e tests are done
def e2e_db_url(pg_endpoint: PostgresEndpoint) -> Iterator[str]:
    yield from _throwaway_database(pg_endpoint, TEMPLATE_DB)


@pytest.fixture(scope="package")  # stopped when the e2e tests are done
def live_server(data_dir: Path, e2e_db_url: str, embedder: LocalEmbedder) -> Iterator[str]:
    """The base URL of the app served over real HTTP."""
    yield from serve(e2e_settings(data_dir, e2e_db_url), embedder)


def e2e_settings(data_dir: Path, db_url: str, **extra: object) -> Settings:
    return Settings(data_dir=data_dir, database_url=SecretStr(db_url),
                    secret_key=SecretStr(TEST_SECRET),
                    api={"chat_burst": 50, "upload_burst": 50,
                         "first_event_wait_ms": 10_000,
                         # Every browser signs up from 127.0.0.1.
                         "signups_per_address": 1000}, **extra)  # type: ignore[arg-type]


def serve(settings: Settings, embedder: LocalEmbedder) -> Iterator[str]:
    """Serve the app under uvicorn in a thread; yields its base URL until closed."""
    app = create_app(settings, run_worker=True, embedder=embedder)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", loop="asyncio", http="h11",
                            ws="none", lifespan="on", timeout_graceful_shutdown=5)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]},
                              name="e2e-uvicorn", daemon=True)
    thread.start()
    deadline = time.monotonic() + 120
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the e2e server did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=60)
    sock.close()


@pytest.fixture(scope="package")  # stopped when the e2e tests are done
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True,
            args=["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                  "--no-first-run", "--disable-extensions"])
        yield launched
        await launched.close()


@pytest.fixture(scope="session")
def screenshots() -> Path:
    SCREENSHOTS.mkdir(exist_ok=True)
    return SCREENSHOTS
