"""File locks that coordinate processes sharing one data directory.

``flock`` locks die with their process, so a SIGKILLed run never leaves a lock behind: stale
locks recover by themselves, which pid files alone cannot promise.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from types import TracebackType


class FileLock:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def _open(self) -> int:
        if self._fd is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        return self._fd

    def acquire(self, *, shared: bool = False, blocking: bool = True) -> bool:
        flags = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
        if not blocking:
            flags |= fcntl.LOCK_NB
        try:
            fcntl.flock(self._open(), flags)
        except BlockingIOError:
            return False
        return True

    def write_owner(self, text: str) -> None:
        fd = self._open()
        os.ftruncate(fd, 0)
        os.pwrite(fd, text.encode(), 0)

    def read_owner(self) -> str:
        try:
            return self.path.read_text().strip()
        except FileNotFoundError:
            return ""

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> FileLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()
