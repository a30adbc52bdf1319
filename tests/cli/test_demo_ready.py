"""``regintel demo`` says its address (and the login) only once the server answers: the URL it
prints opens at once, and no "embedded stores … stopped" is logged on the way up (issue 38)."""

from __future__ import annotations

import queue
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from tests.cli.conftest import cli_env, free_port, regintel_executable

STARTUP_S = 600


def _lines(stream: object, into: queue.Queue[tuple[float, str]]) -> None:
    for line in stream:  # type: ignore[attr-defined]
        into.put((time.monotonic(), line.rstrip("\n")))


@pytest.mark.slow
def test_demo_prints_its_address_only_when_it_answers(server_dir: Path) -> None:
    port = free_port()
    started = time.monotonic()
    proc = subprocess.Popen([regintel_executable(), "demo", "--port", str(port)], text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=cli_env(server_dir))
    out: queue.Queue[tuple[float, str]] = queue.Queue()
    err: queue.Queue[tuple[float, str]] = queue.Queue()
    readers = [threading.Thread(target=_lines, args=(stream, into), daemon=True)
               for stream, into in ((proc.stdout, out), (proc.stderr, err))]
    for reader in readers:
        reader.start()
    try:
        printed: list[str] = []
        url = ""
        while not url:
            _, line = out.get(timeout=STARTUP_S)
            printed.append(line)
            if "http://" in line:
                url = line[line.index("http://"):].split()[0]
        # The address printed is a page that opens now.
        assert url.startswith("http://127.0.0.1:"), url
        with urllib.request.urlopen(f"{url}/", timeout=5) as page:  # noqa: S310 (http only)
            assert page.status == 200
        assert "is ready" in printed[-1], printed
        _, login = out.get(timeout=10)
        assert login.startswith("Log in as "), login
        logged = []
        while not err.empty():
            logged.append(err.get()[1])
        assert not any("stopped" in line for line in logged), logged
        print(f"demo answered after {time.monotonic() - started:.1f} s")
    finally:
        # Stopped mid-ingestion: the worker finishes its current batch of chunks first.
        proc.terminate()
        proc.wait(timeout=300)
        for reader in readers:
            reader.join(timeout=30)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
