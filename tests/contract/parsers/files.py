"""Helpers for the parser contract tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from regintel.errors import DocumentRejected

Rejection = Callable[[bytes, str], DocumentRejected]


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    """The tests build real files on disk, as an upload would arrive."""
    path = tmp_path / name
    path.write_bytes(data)
    return path
