"""``regintel serve`` for real: health, one server per data directory, recovery after SIGKILL,
503 when a store dies, and a clean stop that takes the embedded servers down."""

from __future__ import annotations

import json
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import psutil
import pytest

from regintel.runtime.falkordb import EmbeddedFalkorDB
from regintel.runtime.postgres import EmbeddedPostgres
from tests.cli.conftest import cli_env, free_port, regintel_executable
from tests.conftest import TEST_SECRET


def _start(data_dir: Path, port: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [regintel_executable(), "serve", "--port", str(port)], text=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env=cli_env(data_dir, REGINTEL_SECRET_KEY=TEST_SECRET))


def _health(port: int) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def _wait_healthy(proc: subprocess.Popen[str], port: int, timeout: float = 90) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"serve exited early: {proc.stderr.read() if proc.stderr else ''}")
        try:
            status, body = _health(port)
            if status == 200:
                return body
        except (urllib.error.URLError, ConnectionError):
            pass
        time.sleep(0.2)
    raise AssertionError("serve did not become healthy")


def _stop(proc: subprocess.Popen[str], sig: int = signal.SIGTERM) -> tuple[int, str]:
    proc.send_signal(sig)
    code = proc.wait(timeout=60)
    err = ""
    if proc.stderr:
        err = proc.stderr.read()
        proc.stderr.close()
    return code, err


@pytest.mark.slow
def test_serve_lifecycle(server_dir: Path) -> None:
    port = free_port()
    first = _start(server_dir, port)
    try:
        body = _wait_healthy(first, port)
        assert body["db"] == "ok" and body["graph"] == "ok" and body["queue"] == "ok"

        second = subprocess.run(
            [regintel_executable(), "serve", "--port", str(free_port())], capture_output=True,
            text=True, timeout=60, env=cli_env(server_dir, REGINTEL_SECRET_KEY=TEST_SECRET),
            check=False)
        assert second.returncode == 3
        assert "is already served by regintel serve on" in second.stderr
        assert f"(pid {first.pid})" in second.stderr
    finally:
        _stop(first, signal.SIGKILL)

    # The killed server left its lock, pid files and running stores behind: a new serve recovers.
    third = _start(server_dir, port)
    try:
        _wait_healthy(third, port)
        graph = EmbeddedFalkorDB(server_dir / "graph")
        graph_pid = int(graph.pid_file.read_text())
        psutil.Process(graph_pid).kill()
        status, body = _health(port)
        assert status == 503
        assert body["graph"] == "down" and body["db"] == "ok" and body["status"] == "degraded"
    finally:
        code, err = _stop(third)
    # uvicorn shuts down gracefully on SIGTERM, then re-raises it so supervisors see the signal.
    assert code in (0, -signal.SIGTERM)
    assert "Application shutdown complete" in err
    # A clean stop by the last user takes the embedded Postgres down with it.
    assert EmbeddedPostgres(server_dir / "pg").running_endpoint() is None
