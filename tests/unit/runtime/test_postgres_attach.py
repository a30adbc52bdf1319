"""Attaching to the embedded Postgres: a postmaster killed a moment ago still has its pid
file and looks alive until it has exited; it refuses connections, so it is waited out and a
new server started, rather than handed to the caller."""

from __future__ import annotations

from pathlib import Path

from regintel.runtime.postgres import EmbeddedPostgres, PostgresEndpoint


def test_a_dying_postmaster_is_waited_out(tmp_path: Path) -> None:
    server = EmbeddedPostgres(tmp_path / "pg", start_timeout_s=5)
    dead = PostgresEndpoint(socket_dir=tmp_path, port=5432)  # no socket: connection refused
    seen = [dead, dead, None]  # what the pid file says, call after call
    server.running_endpoint = lambda: seen.pop(0)  # type: ignore[method-assign]
    assert server._live_endpoint() is None
    assert seen == []


def test_a_server_that_never_accepts_is_handed_over_at_the_deadline(tmp_path: Path) -> None:
    server = EmbeddedPostgres(tmp_path / "pg", start_timeout_s=0.5)
    dead = PostgresEndpoint(socket_dir=tmp_path, port=5432)
    server.running_endpoint = lambda: dead  # type: ignore[method-assign]
    assert server._live_endpoint() == dead
