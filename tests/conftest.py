"""Shared fixtures: one throwaway data directory per test session with the real embedded
Postgres (pgvector) and FalkorDB; a fresh, migrated database and a fresh graph per test; and a
guard that fails any test trying to reach the network beyond loopback."""

from __future__ import annotations

import importlib.util
import ipaddress
import os
import shutil
import socket
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from pydantic import SecretStr

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.adapters.graph.falkordb_store import FalkorGraphStore
from regintel.adapters.postgres.database import Database
from regintel.adapters.postgres.migrate import migrate
from regintel.runtime.postgres import PostgresEndpoint
from regintel.runtime.stores import EmbeddedEndpoints, EmbeddedStores
from regintel.settings import Settings

TEST_SECRET = "test-secret-key-that-is-long-enough-0123456789"
TEMPLATE_DB = "regintel_template"

# A developer's own configuration must never point the tests at real data.
for _name in [n for n in os.environ if n.startswith("REGINTEL_") and
              not n.startswith("REGINTEL_TEST_")]:
    del os.environ[_name]


# -- network guard ---------------------------------------------------------------------------
_real_connect = socket.socket.connect


def _guarded_connect(self: socket.socket, address: Any) -> None:
    if self.family in (socket.AF_INET, socket.AF_INET6):
        host = address[0]
        try:
            is_loopback = ipaddress.ip_address(host).is_loopback
        except ValueError:
            is_loopback = host == "localhost"
        if not is_loopback:
            raise RuntimeError(f"test tried to reach the network: {address!r}")
    _real_connect(self, address)


@pytest.fixture(autouse=True, scope="session")
def _no_network() -> Iterator[None]:
    socket.socket.connect = _guarded_connect  # type: ignore[method-assign,assignment]
    yield
    socket.socket.connect = _real_connect  # type: ignore[method-assign]


# -- embedded stores -------------------------------------------------------------------------
def _server_dir() -> Iterator[Path]:
    # Not under pytest's tmp root: pytest re-tightens that to 0700 whenever a session starts,
    # which would cut the embedded Postgres (run as its own system user) off from its files.
    path = Path(tempfile.mkdtemp(prefix="regintel-test-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def data_dir() -> Iterator[Path]:
    """The session's data directory, shared by the session's embedded servers."""
    yield from _server_dir()


@pytest.fixture
def server_dir() -> Iterator[Path]:
    """A data directory of a test's own, for tests that start, kill or stop servers."""
    yield from _server_dir()


@pytest.fixture(scope="session")
def embedded(data_dir: Path) -> Iterator[EmbeddedEndpoints]:
    with EmbeddedStores(data_dir, postgres=True, graph=True) as endpoints:
        yield endpoints


@pytest.fixture(scope="session")
def pg_endpoint(embedded: EmbeddedEndpoints) -> PostgresEndpoint:
    assert embedded.postgres is not None
    endpoint = embedded.postgres
    with psycopg.connect(endpoint.url("postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{TEMPLATE_DB}"')
        conn.execute(f'CREATE DATABASE "{TEMPLATE_DB}"')
    migrate(endpoint.url(TEMPLATE_DB))
    return endpoint


def _throwaway_database(endpoint: PostgresEndpoint, template: str | None) -> Iterator[str]:
    name = f"t_{uuid.uuid4().hex[:12]}"
    clause = f' TEMPLATE "{template}"' if template else ""
    with psycopg.connect(endpoint.url("postgres"), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"{clause}')
    yield endpoint.url(name)
    with psycopg.connect(endpoint.url("postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def fresh_db_url(pg_endpoint: PostgresEndpoint) -> Iterator[str]:
    """A new database cloned from the migrated template, dropped after the test."""
    yield from _throwaway_database(pg_endpoint, TEMPLATE_DB)


@pytest.fixture
def empty_db_url(pg_endpoint: PostgresEndpoint) -> Iterator[str]:
    """A new database with no schema at all, dropped after the test."""
    yield from _throwaway_database(pg_endpoint, None)


@pytest.fixture
async def database(fresh_db_url: str) -> AsyncIterator[Database]:
    db = Database(fresh_db_url, pool_size=4)
    yield db
    await db.dispose()


@pytest.fixture
async def graph(embedded: EmbeddedEndpoints) -> AsyncIterator[FalkorGraphStore]:
    """A throwaway graph (its own key) on the session's FalkorDB, deleted after the test."""
    assert embedded.graph_socket is not None
    name = f"test_{uuid.uuid4().hex[:12]}"
    store = FalkorGraphStore(graph_name=name, unix_socket_path=str(embedded.graph_socket))
    yield store
    from falkordb import FalkorDB

    client = FalkorDB(unix_socket_path=str(embedded.graph_socket))
    if name in client.list_graphs():
        client.select_graph(name).delete()
    client.connection.close()
    await store.close()


@pytest.fixture
def settings(data_dir: Path, embedded: EmbeddedEndpoints) -> Settings:
    """Settings on the session's data directory (the container attaches to its servers)."""
    return Settings(data_dir=data_dir, secret_key=SecretStr(TEST_SECRET))


@pytest.fixture(scope="session")
def embedder() -> LocalEmbedder:
    """The real all-MiniLM-L6-v2, loaded once per test session."""
    return LocalEmbedder()


# -- the local model ---------------------------------------------------------------------------
# Kept between runs (like pip's wheel cache): the packaged model is assembled and verified once.
MODEL_CACHE = Path(tempfile.gettempdir()) / "regintel-test-models"


@pytest.fixture(scope="session")
def local_model_path() -> Path:
    """The packaged 0.5B model's GGUF. Missing llama-cpp-python or model parts FAIL the tests
    that need it (never skip them): CI must prove the local-model path."""
    from regintel.errors import DependencyUnavailable
    from regintel.runtime.models import DEFAULT_MODEL, ModelStore

    if importlib.util.find_spec("llama_cpp") is None:
        pytest.fail("llama-cpp-python is not installed: the real-model tests need it "
                    "(pip install -e '.[local-llm]', which scripts/bootstrap.sh does)")
    try:
        return Path(ModelStore(MODEL_CACHE).ensure(DEFAULT_MODEL).path)
    except DependencyUnavailable as exc:
        pytest.fail(f"the packaged model is missing: {exc}")
