"""A real regulation version from the shared data, when it is beside the project."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[4] / "shared" / "data"
if not SHARED.is_dir():
    SHARED = Path("/work/shared/data")
VERSIONS = SHARED / "versions" / "atf"


@pytest.fixture(scope="session")
def part_478() -> str:
    path = VERSIONS / "478" / "2014-18842.txt"
    if not path.is_file():
        pytest.skip("../shared/data/versions is not beside the project")
    return path.read_text(encoding="utf-8")
