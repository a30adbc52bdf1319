"""Start, share and stop the embedded stores of one data directory.

Every process that uses the embedded stores holds a *shared* flock on ``usage.lock``. Starting is
serialised by ``start.lock``. On close, a process that can turn its lock *exclusive* is the last
user, so it stops the servers; otherwise it leaves them to the others. flocks vanish with their
process, so a SIGKILLed user never keeps the servers pinned or locked.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from regintel.errors import DataDirInUse
from regintel.runtime.falkordb import EmbeddedFalkorDB
from regintel.runtime.locks import FileLock
from regintel.runtime.postgres import EmbeddedPostgres, PostgresEndpoint

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class EmbeddedEndpoints:
    postgres: PostgresEndpoint | None
    graph_socket: Path | None


class EmbeddedStores:
    def __init__(self, data_dir: Path, *, postgres: bool, graph: bool,
                 pg_start_timeout_s: float = 30.0, graph_appendfsync: str = "always",
                 quiet_stop: bool = False) -> None:
        """``quiet_stop``: a stop that is a step of starting up (the schema migrated before the
        server starts) is logged at debug level, not as "stopped" just before the start."""
        self.data_dir = data_dir.resolve()
        self._quiet_stop = quiet_stop
        self.postgres = (EmbeddedPostgres(self.data_dir / "pg", start_timeout_s=pg_start_timeout_s)
                         if postgres else None)
        self.graph = (EmbeddedFalkorDB(self.data_dir / "graph", appendfsync=graph_appendfsync)
                      if graph else None)
        lock_dir = self.data_dir / "locks"
        self._usage = FileLock(lock_dir / "usage.lock")
        self._start = FileLock(lock_dir / "start.lock")
        self._opened = False

    def open(self) -> EmbeddedEndpoints:
        if self.postgres is None and self.graph is None:
            return EmbeddedEndpoints(None, None)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._usage.acquire(shared=True)
        self._opened = True
        with self._start:
            pg = self.postgres.start() if self.postgres else None
            sock = self.graph.start() if self.graph else None
        return EmbeddedEndpoints(pg, sock)

    def close(self) -> None:
        if not self._opened:
            return
        self._opened = False
        # Converting shared → exclusive without blocking succeeds only for the last user.
        if self._usage.acquire(blocking=False):
            with self._start:
                if self.graph is not None:
                    self.graph.stop()
                if self.postgres is not None:
                    self.postgres.stop()
            log.log(logging.DEBUG if self._quiet_stop else logging.INFO,
                    "embedded stores in %s stopped", self.data_dir)
        self._usage.release()

    def __enter__(self) -> EmbeddedEndpoints:
        return self.open()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


class ServeLock:
    """One ``regintel serve`` per data directory: a second gets a clear error naming the first."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir.resolve()
        self._lock = FileLock(self.data_dir / "locks" / "serve.lock")

    def acquire(self, description: str) -> None:
        if not self._lock.acquire(blocking=False):
            owner = self._lock.read_owner() or "another process"
            raise DataDirInUse(
                f"the data directory {self.data_dir} is already served by {owner}",
                hint="stop that server, or point REGINTEL_DATA_DIR at another directory",
            )
        self._lock.write_owner(f"{description} (pid {os.getpid()})")

    def release(self) -> None:
        self._lock.release()
