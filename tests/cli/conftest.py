"""Run the real ``regintel`` console script in subprocesses on throwaway data directories."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import TEST_SECRET

RunCli = Callable[..., subprocess.CompletedProcess[str]]


def regintel_executable() -> str:
    found = shutil.which("regintel", path=str(Path(sys.executable).parent))
    assert found, "the regintel console script is not installed in this environment"
    return found


def cli_env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REGINTEL_")}
    env.update({"REGINTEL_DATA_DIR": str(data_dir), **extra})
    return env


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def run_cli(server_dir: Path) -> RunCli:
    def run(*args: str, secret: bool = False, timeout: float = 120,
            **env: str) -> subprocess.CompletedProcess[str]:
        extra = {"REGINTEL_SECRET_KEY": TEST_SECRET} if secret else {}
        return subprocess.run([regintel_executable(), *args], capture_output=True, text=True,
                              timeout=timeout, env=cli_env(server_dir, **extra, **env), check=False)
    return run
