"""Fixtures for the parser contract tests: the real AutoParser, and a helper that expects a
rejection and returns the message the user will see."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from regintel.adapters.parsers import AutoParser
from regintel.errors import DocumentRejected

Rejection = Callable[[bytes, str], DocumentRejected]


@pytest.fixture
def parser() -> AutoParser:
    return AutoParser()


@pytest.fixture
def rejected(parser: AutoParser) -> Rejection:
    """Parse ``data`` uploaded as ``filename``; return the DocumentRejected it must raise."""

    def check(data: bytes, filename: str) -> DocumentRejected:
        with pytest.raises(DocumentRejected) as info:
            parser.parse(data, filename)
        return info.value

    return check


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    """The tests build real files on disk, as an upload would arrive."""
    path = tmp_path / name
    path.write_bytes(data)
    return path
