"""Embedded Postgres 16 with pgvector, from the binaries the ``pgserver`` package ships.

We drive ``initdb``/``pg_ctl`` ourselves instead of ``pgserver.get_server`` because its
handle bookkeeping (a pid list on disk) goes wrong after a SIGKILL; our processes coordinate
through flocks instead (see ``runtime/stores.py``).
"""

from __future__ import annotations

import logging
import os
import platform
import subprocess
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

from regintel.errors import DependencyUnavailable
from regintel.runtime import paths

log = logging.getLogger(__name__)

DATABASE_NAME = "regintel"
SUPERUSER = "postgres"
# Postgres refuses to run as root; when we are root we run it as this system user.
SYSTEM_USER = "pgserver"


@dataclass(frozen=True)
class PostgresEndpoint:
    socket_dir: Path
    port: int

    def url(self, database: str = DATABASE_NAME, *, driver: str = "postgresql") -> str:
        return (f"{driver}://{SUPERUSER}@/{database}"
                f"?host={self.socket_dir}&port={self.port}")


class EmbeddedPostgres:
    def __init__(self, pgdata: Path, *, start_timeout_s: float = 30.0) -> None:
        self.pgdata = pgdata.resolve()
        self.start_timeout_s = start_timeout_s
        self._run_as = SYSTEM_USER if platform.system() != "Windows" and os.geteuid() == 0 else None

    # -- state -------------------------------------------------------------------------------
    @property
    def initialized(self) -> bool:
        return (self.pgdata / "PG_VERSION").exists()

    def running_endpoint(self) -> PostgresEndpoint | None:
        """The endpoint of a live postmaster for this data dir, or None."""
        pid_file = self.pgdata / "postmaster.pid"
        try:
            lines = pid_file.read_text().splitlines()
        except (FileNotFoundError, PermissionError):
            return None
        if len(lines) < 8 or lines[7].strip() != "ready":
            return None
        pid, port, socket_dir = int(lines[0]), int(lines[3]), lines[4].strip()
        if not _is_postmaster(pid, self.pgdata):
            return None
        return PostgresEndpoint(socket_dir=Path(socket_dir), port=port)

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> PostgresEndpoint:
        """Start (initialising on first use) or attach to the running server."""
        endpoint = self._live_endpoint()
        if endpoint is not None:
            return endpoint
        if not self.initialized:
            self._initdb()
        socket_dir = self._socket_dir()
        self._clear_stale_locks(socket_dir)
        args = ["-w", "-t", str(int(self.start_timeout_s)), "-o", '-h ""',
                "-o", f"-k {socket_dir}", "-l", str(self.pgdata / "log"), "start"]
        deadline = time.monotonic() + self.start_timeout_s
        while True:
            try:
                self._pg_ctl(args)
                break
            except subprocess.CalledProcessError as exc:
                # After a SIGKILL, orphaned backends may still hold the old shared memory for a
                # moment; they exit as soon as they notice the postmaster is gone.
                if time.monotonic() > deadline:
                    raise DependencyUnavailable(
                        "the embedded Postgres did not start",
                        hint=f"see {self.pgdata / 'log'}: {_tail(self.pgdata / 'log')}",
                    ) from exc
                time.sleep(0.5)
        endpoint = self.running_endpoint()
        if endpoint is None:
            raise DependencyUnavailable("the embedded Postgres started but is not ready",
                                        hint=f"see {self.pgdata / 'log'}")
        self._ensure_database(endpoint)
        return endpoint

    def _live_endpoint(self) -> PostgresEndpoint | None:
        """The running server's endpoint once it accepts connections; None when there is no
        server, or when the one the pid file names goes away instead (a postmaster killed a
        moment ago still looks alive until it has exited, and refuses connections)."""
        deadline = time.monotonic() + self.start_timeout_s
        while (endpoint := self.running_endpoint()) is not None:
            if _accepts(endpoint) or time.monotonic() > deadline:
                return endpoint
            time.sleep(0.2)
        return None

    def stop(self) -> None:
        if self.running_endpoint() is None:
            return
        try:
            self._pg_ctl(["-w", "-m", "fast", "stop"])
        except subprocess.CalledProcessError:
            log.warning("pg_ctl stop failed for %s; the server may already be down", self.pgdata)

    # -- helpers -----------------------------------------------------------------------------
    def _initdb(self) -> None:
        self.pgdata.mkdir(parents=True, exist_ok=True)
        self._prepare_permissions()
        _pgserver_commands().initdb(
            ["--auth=trust", "--auth-local=trust", "--encoding=utf8", "-U", SUPERUSER],
            pgdata=self.pgdata, user=self._run_as)
        # Unix sockets only; durability defaults stay (fsync on) so committed rows survive kills.
        with (self.pgdata / "postgresql.conf").open("a") as conf:
            conf.write("\n# regintel\nlisten_addresses = ''\nmax_connections = 200\n"
                       "shared_buffers = 256MB\n")

    def _prepare_permissions(self) -> None:
        if self._run_as is None:
            return
        import pwd

        bin_path = _pgserver_commands().POSTGRES_BIN_PATH
        from pgserver.utils import (
            ensure_folder_permissions,
            ensure_prefix_permissions,
            ensure_user_exists,
        )

        ensure_user_exists(self._run_as)
        ensure_prefix_permissions(self.pgdata)
        ensure_prefix_permissions(bin_path)
        ensure_folder_permissions(bin_path, 0o055)
        ensure_folder_permissions(bin_path.parent / "lib", 0o044)
        entry = pwd.getpwnam(self._run_as)
        os.chown(self.pgdata, entry.pw_uid, entry.pw_gid)

    def _socket_dir(self) -> Path:
        if paths.fits(self.pgdata / ".s.PGSQL.5432"):
            return self.pgdata
        short = paths.short_path(self.pgdata, "pg")
        short.mkdir(mode=0o777, exist_ok=True)
        short.chmod(0o777)  # the postgres system user must create its socket here
        return short

    def _clear_stale_locks(self, socket_dir: Path) -> None:
        """After a SIGKILL the postmaster's pid file and socket lock name a dead (or zombie, or
        reused) pid; postgres would refuse to start on them, so we remove them."""
        for lock in (self.pgdata / "postmaster.pid", socket_dir / ".s.PGSQL.5432.lock"):
            try:
                pid = int(lock.read_text().splitlines()[0])
            except (FileNotFoundError, IndexError, ValueError):
                continue
            if not _is_postmaster(pid, self.pgdata):
                log.info("removing stale %s (pid %s is not our postmaster)", lock.name, pid)
                lock.unlink(missing_ok=True)

    def _ensure_database(self, endpoint: PostgresEndpoint) -> None:
        import psycopg

        with psycopg.connect(endpoint.url("postgres"), autocommit=True) as conn:
            exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s",
                                  (DATABASE_NAME,)).fetchone()
            if exists is None:
                conn.execute(f'CREATE DATABASE "{DATABASE_NAME}"')

    def _pg_ctl(self, args: list[str]) -> None:
        _pgserver_commands().pg_ctl(args, pgdata=self.pgdata, user=self._run_as,
                                    timeout=self.start_timeout_s + 10)


def _is_postmaster(pid: int, pgdata: Path) -> bool:
    """True when ``pid`` is a live postgres process serving ``pgdata`` (pids get reused)."""
    try:
        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE or "postgres" not in proc.name():
            return False
        cmdline = " ".join(proc.cmdline())
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return False
    return str(pgdata) in cmdline or proc.cwd() == str(pgdata)


def _accepts(endpoint: PostgresEndpoint) -> bool:
    import psycopg

    try:
        with psycopg.connect(endpoint.url("postgres"), connect_timeout=5):
            return True
    except psycopg.OperationalError:
        return False


def _pgserver_commands() -> Any:
    """Import pgserver quietly: its import touches platformdirs, which warns when
    XDG_RUNTIME_DIR is unset (as on servers and in CI)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver._commands as commands
        import pgserver.utils  # noqa: F401 (loaded under the same filter)
    return commands


def _tail(path: Path, lines: int = 5) -> str:
    try:
        return " | ".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"
