"""Unix socket paths must fit ``sun_path`` (108 bytes); deep data directories do not."""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path

SOCKET_PATH_MAX = 100  # leaves room for a server's own suffix such as ".s.PGSQL.5432"


def fits(path: Path) -> bool:
    return len(str(path)) <= SOCKET_PATH_MAX


def short_path(owner: Path, kind: str) -> Path:
    """A stable short path in the temp dir, unique to ``owner`` (a digest, not a secret)."""
    digest = hashlib.sha256(bytes(owner.resolve())).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"regintel-{kind}-{digest}"
