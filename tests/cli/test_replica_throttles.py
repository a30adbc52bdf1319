"""Issue 34: two real `regintel serve` replicas on one database share their throttles. The
sign-in counter and the chat quota used to live in each process's memory, so every replica
allowed the full quota; now both count in Postgres."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from regintel.runtime.stores import EmbeddedEndpoints
from tests.cli.conftest import cli_env, free_port, regintel_executable
from tests.conftest import TEST_SECRET

PASSWORD = "correct horse battery staple"


def _lower(headers: Iterable[tuple[str, str]]) -> dict[str, str]:
    return {name.lower(): value for name, value in headers}


def _call(port: int, method: str, path: str, body: dict[str, Any] | None = None,
          token: str | None = None) -> tuple[int, dict[str, Any], dict[str, str]]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Content-Type": "application/json",
                 **({"Authorization": f"Bearer {token}"} if token else {})})
    try:
        # The URL is built above from a fixed http://127.0.0.1 prefix.
        with urllib.request.urlopen(request, timeout=60) as r:  # noqa: S310
            return r.status, json.loads(r.read() or b"{}"), _lower(r.headers.items())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"{}"), _lower(err.headers.items())


def _wait_healthy(proc: subprocess.Popen[str], port: int, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"serve exited early: {proc.stderr.read() if proc.stderr else ''}")
        try:
            if _call(port, "GET", "/healthz")[0] == 200:
                return
        except (urllib.error.URLError, ConnectionError):
            pass
        time.sleep(0.5)
    raise AssertionError("serve did not become healthy")


@pytest.fixture
def replicas(fresh_db_url: str, embedded: EmbeddedEndpoints,
             server_dir: Path) -> Iterator[tuple[int, int]]:
    """Two servers (own data directories, so two serve locks) on the test's database and the
    session's FalkorDB, with a chat burst of two turns and a slow refill."""
    assert embedded.graph_socket is not None
    # Outside pytest's tmp root, like conftest's server_dir (the embedded stores need that).
    second_dir = Path(tempfile.mkdtemp(prefix="regintel-test-"))
    graph_name = f"test_{uuid.uuid4().hex[:12]}"
    ports = (free_port(), free_port())
    procs = [subprocess.Popen(
        [regintel_executable(), "serve", "--port", str(port)], text=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env=cli_env(directory, REGINTEL_DATABASE_URL=fresh_db_url,
                    REGINTEL_GRAPH_URL=f"unix://{embedded.graph_socket}",
                    REGINTEL_GRAPH__NAME=graph_name, REGINTEL_SECRET_KEY=TEST_SECRET,
                    REGINTEL_API__CHAT_BURST="2", REGINTEL_API__CHAT_PER_MINUTE="0.5"))
        for directory, port in zip((server_dir, second_dir), ports, strict=True)]
    try:
        for proc, port in zip(procs, ports, strict=True):
            _wait_healthy(proc, port)
        yield ports
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        for proc in procs:
            proc.wait(timeout=60)
            if proc.stderr:
                proc.stderr.close()
        from falkordb import FalkorDB

        client = FalkorDB(unix_socket_path=str(embedded.graph_socket))
        if graph_name in client.list_graphs():
            client.select_graph(graph_name).delete()
        client.connection.close()
        shutil.rmtree(second_dir, ignore_errors=True)


@pytest.mark.slow
def test_two_replicas_share_the_sign_in_throttle_and_the_chat_quota(
        replicas: tuple[int, int]) -> None:
    a, b = replicas
    email = f"replica-{uuid.uuid4().hex[:8]}@example.test"
    status, _, _ = _call(a, "POST", "/api/auth/signup", {"email": email, "password": PASSWORD})
    assert status == 202

    # Wrong passwords, alternating replicas: ten are judged, the eleventh is refused on
    # whichever replica it lands, and so is the next one on the other.
    statuses = [_call((a, b)[i % 2], "POST", "/api/auth/login",
                      {"email": email, "password": f"wrong guess number {i}"})
                for i in range(12)]
    assert [s for s, _, _ in statuses] == [401] * 10 + [429, 429], statuses
    assert int(statuses[10][2]["retry-after"]) >= 1
    print(f"\nsign-in across two replicas: {[s for s, _, _ in statuses]}")

    # The chat quota (burst 2) is one bucket for both replicas. A thread of no one's spends a
    # token and then answers 404, so no model runs; the third turn is refused wherever it goes.
    other = f"replica-{uuid.uuid4().hex[:8]}@example.test"
    assert _call(b, "POST", "/api/auth/signup", {"email": other, "password": PASSWORD})[0] == 202
    status, login, _ = _call(b, "POST", "/api/auth/login",
                             {"email": other, "password": PASSWORD, "session": "bearer"})
    assert status == 200, login
    token = login["access_token"]
    turns = [_call((a, b)[i % 2], "POST", "/api/chat",
                   {"message": "What must a firm report?", "thread_id": str(uuid.uuid4())},
                   token=token)[0] for i in range(4)]
    print(f"chat turns across two replicas (burst 2): {turns}")
    assert turns == [404, 404, 429, 429]
