"""``regintel ask`` end to end in subprocesses: a streamed answer with citations, ``--json``,
and a thread that survives a hard kill of the server and its database, interrupt included."""

from __future__ import annotations

import json
import re
import signal
import subprocess
from pathlib import Path

import psutil
import pytest

from regintel.runtime.postgres import EmbeddedPostgres
from tests.chat.conftest import RULEBOOKS
from tests.cli.conftest import RunCli, cli_env, free_port, regintel_executable
from tests.cli.test_serve_lifecycle import _stop, _wait_healthy
from tests.conftest import TEST_SECRET


def _regulation(tmp_path: Path, name: str, source: str, start: int) -> Path:
    text = (RULEBOOKS / source).read_text(encoding="utf-8")[start:start + 12_000]
    path = tmp_path / f"{name}.txt"
    path.write_text(text, encoding="utf-8")
    return path


def _ingest(run_cli: RunCli, path: Path, title: str) -> str:
    done = run_cli("ingest", str(path), "--type", "regulation", "--title", title, "--json",
                   timeout=300)
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["document_id"])


@pytest.mark.slow
def test_ask_streams_and_a_thread_survives_a_server_kill(run_cli: RunCli, server_dir: Path,
                                                         tmp_path: Path) -> None:
    aml = _ingest(run_cli, _regulation(tmp_path, "aml", "AML_VER09.211223.txt", 60_000),
                  "AML extract")
    gen = _ingest(run_cli, _regulation(tmp_path, "gen", "GEN_VER08.181223.txt", 40_000),
                  "GEN extract")

    # The terminal shows both streams: the log lines the command writes when it closes
    # start on a line of their own, not after the answer's last words.
    streamed = subprocess.run(
        [regintel_executable(), "ask", "What must a Relevant Person do about customer due "
         "diligence?", "--doc", aml], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, timeout=300, env=cli_env(server_dir), check=False)
    assert streamed.returncode == 0, streamed.stdout
    assert "[1] AML extract" in streamed.stdout and "engine offline" in streamed.stdout
    assert "stores in" in streamed.stdout  # the closing log line, which must not be glued on
    assert not re.search(r"[^\n]\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", streamed.stdout), \
        streamed.stdout

    port = free_port()
    server = subprocess.Popen(
        [regintel_executable(), "serve", "--port", str(port)], text=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env=cli_env(server_dir, REGINTEL_SECRET_KEY=TEST_SECRET))
    try:
        _wait_healthy(server, port)
        asked = run_cli("ask", "Compare this regulation", "--doc", aml, "--json", timeout=300)
        assert asked.returncode == 0, asked.stderr
        first = json.loads(asked.stdout)
        assert first["needs_input"]["kind"] == "missing_docs"
        assert gen in [o["id"] for o in first["needs_input"]["options"]]
    finally:
        postgres = EmbeddedPostgres(server_dir / "pg").running_endpoint()
        _stop(server, signal.SIGKILL)
    # The database dies hard too: the thread must come back from its checkpoint.
    if postgres is not None:
        for proc in psutil.process_iter(["cmdline"]):
            if str(server_dir / "pg") in " ".join(proc.info["cmdline"] or []):
                proc.kill()

    resumed = run_cli("ask", "--thread", first["thread_id"], "--answer", "GEN extract",
                      "--json", timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    second = json.loads(resumed.stdout)
    assert second["thread_id"] == first["thread_id"] and second["needs_input"] is None
    assert second["action"] == "compare" and second["comparison"] is not None
    assert {d["id"] for d in second["resolved_documents"]} == {aml, gen}


def test_ask_with_no_documents_says_how_to_add_one(run_cli: RunCli) -> None:
    """Issue 38: with an empty library the answer was only "Limited information was found";
    the command now says there are no documents yet and how to add one, as the browser does."""
    asked = run_cli("ask", "What must a firm do about customer due diligence?")
    assert asked.returncode == 5, (asked.stdout, asked.stderr)  # UserInputNeeded
    assert "You have no documents yet" in asked.stderr, asked.stderr
    assert "regintel ingest FILE --type regulation --title TITLE" in asked.stderr
    assert "Limited information" not in asked.stdout
