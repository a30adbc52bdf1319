"""Fixtures for the parser contract tests: the real AutoParser, and a helper that expects a
rejection and returns the message the user will see."""

from __future__ import annotations

import pytest

from regintel.adapters.parsers import AutoParser
from regintel.errors import DocumentRejected
from tests.contract.parsers.files import Rejection


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

