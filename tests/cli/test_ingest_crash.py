"""Issue 34, finding 3: a `regintel ingest` SIGKILLed mid-ingestion left its document
`processing` with no chunks and its job `doing` forever. Now the next worker notices the dead
worker's silent heartbeat and runs the job again, and a re-upload of the stuck file restarts it."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from pydantic import SecretStr

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.container import Container
from regintel.domain.documents import DocStatus, DocType
from regintel.ingestion.service import INGEST_JOB
from regintel.runtime.stores import EmbeddedEndpoints
from regintel.settings import QueueSettings, Settings, UploadSettings
from tests.cli.conftest import cli_env, regintel_executable
from tests.conftest import TEST_SECRET

HEARTBEAT_S, STALLED_AFTER_S, RECOVER_EVERY_S = 0.5, 3.0, 1.0


def _policy_text() -> bytes:
    # ~80 chunks: loading the model and embedding them leaves time to kill the process half-way.
    paragraphs = [
        f"Article {i}. The operator shall retain the record of transaction {i * 37 % 1009} "
        f"for {i % 9 + 1} years, report breaches of control {i % 41} to the regulator within "
        f"{i % 5 + 1} business days, and review the register of outsourced function {i % 23} "
        f"at least every {i % 4 + 1} quarters."
        for i in range(250)
    ]
    return "\n\n".join(paragraphs).encode()


@pytest.fixture
def crash_env(fresh_db_url: str, embedded: EmbeddedEndpoints,
              server_dir: Path) -> Iterator[dict[str, str]]:
    """The CLI on the test's own database and graph, with second-scale heartbeats."""
    assert embedded.graph_socket is not None
    graph_name = f"test_{uuid.uuid4().hex[:12]}"
    yield cli_env(
        server_dir, REGINTEL_DATABASE_URL=fresh_db_url,
        REGINTEL_GRAPH_URL=f"unix://{embedded.graph_socket}",
        REGINTEL_GRAPH__NAME=graph_name, REGINTEL_SECRET_KEY=TEST_SECRET,
        REGINTEL_QUEUE__HEARTBEAT_S=str(HEARTBEAT_S),
        REGINTEL_QUEUE__STALLED_AFTER_S=str(STALLED_AFTER_S),
        REGINTEL_QUEUE__RECOVER_EVERY_S=str(RECOVER_EVERY_S),
        REGINTEL_UPLOAD__PREPARE_AUDITS="false")  # a follow-up, beside the point here
    from falkordb import FalkorDB

    client = FalkorDB(unix_socket_path=str(embedded.graph_socket))
    if graph_name in client.list_graphs():
        client.select_graph(graph_name).delete()
    client.connection.close()


def _state(url: str) -> tuple[str | None, str | None, int, int]:
    """(document status, its ingestion job's status, chunk_count, chunk rows)."""
    with psycopg.connect(url) as conn:
        doc = conn.execute("SELECT id, status, chunk_count FROM documents").fetchone()
        job = conn.execute("SELECT status FROM procrastinate_jobs WHERE task_name = %s "
                           "ORDER BY id DESC LIMIT 1", (INGEST_JOB,)).fetchone()
        rows = conn.execute("SELECT count(*) FROM chunks").fetchone()
    return (doc[1] if doc else None, job[0] if job else None, doc[2] if doc else 0,
            rows[0] if rows else 0)


def _ingest_and_kill(env: dict[str, str], url: str, path: Path) -> None:
    log = path.with_suffix(".log")
    with log.open("w") as err:
        proc = subprocess.Popen([regintel_executable(), "ingest", str(path), "--type", "policy"],
                                env=env, stdout=subprocess.DEVNULL, stderr=err)
    try:
        deadline = time.monotonic() + 120
        while _state(url)[:2] != ("processing", "doing"):
            assert proc.poll() is None, f"ingest ended before it was killed: {log.read_text()}"
            assert time.monotonic() < deadline, "the ingestion job never started"
            time.sleep(0.1)
        time.sleep(0.5)  # into the parsing and embedding
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    # The crash as reported: stuck, with nothing that would ever finish it.
    assert _state(url) == ("processing", "doing", 0, 0)


def _wait_settled(url: str, timeout: float) -> tuple[str | None, str | None, int, int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = _state(url)
        if state[0] in ("ready", "failed") and state[1] != "doing":
            return state
        time.sleep(0.5)
    raise AssertionError(f"the document never left processing: {_state(url)}")


@pytest.mark.slow
def test_a_killed_ingestion_finishes_on_the_next_worker(
        crash_env: dict[str, str], fresh_db_url: str, tmp_path: Path) -> None:
    path = tmp_path / "retention-policy.txt"
    path.write_bytes(_policy_text())
    _ingest_and_kill(crash_env, fresh_db_url, path)

    # A worker started right away: the killed worker's heartbeat is still recent, so its periodic
    # recovery (not only the one at start) must pick the job up. Nobody else acts.
    worker = subprocess.Popen([regintel_executable(), "worker", "--concurrency", "1"],
                              env=crash_env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True)
    try:
        started = time.monotonic()
        status, job, chunk_count, rows = _wait_settled(fresh_db_url, timeout=240)
        took = time.monotonic() - started
    finally:
        worker.send_signal(signal.SIGINT)
        try:
            worker.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.kill(worker.pid, signal.SIGKILL)
            worker.wait()
        if worker.stderr:
            worker.stderr.close()
    assert (status, job) == ("ready", "succeeded")
    assert chunk_count > 20 and rows == chunk_count  # run twice, stored once
    print(f"stuck document ready {took:.1f}s after the worker started")


@pytest.mark.slow
async def test_uploading_a_stuck_document_again_restarts_it(
        crash_env: dict[str, str], fresh_db_url: str, embedded: EmbeddedEndpoints,
        embedder: LocalEmbedder, tmp_path: Path) -> None:
    data = _policy_text()
    path = tmp_path / "retention-policy.txt"
    path.write_bytes(data)
    await asyncio.to_thread(_ingest_and_kill, crash_env, fresh_db_url, path)
    await asyncio.sleep(STALLED_AFTER_S + 1)  # the killed worker's heartbeat is now overdue

    settings = Settings(
        data_dir=Path(crash_env["REGINTEL_DATA_DIR"]), database_url=SecretStr(fresh_db_url),
        secret_key=SecretStr(TEST_SECRET),
        graph_url=f"unix://{embedded.graph_socket}", upload=UploadSettings(prepare_audits=False),
        queue=QueueSettings(heartbeat_s=HEARTBEAT_S, stalled_after_s=STALLED_AFTER_S,
                            recover_every_s=RECOVER_EVERY_S))
    container = await Container.open(settings, embedder=embedder)
    try:
        tenant_id = await container.documents.ensure_tenant("default")
        again = await container.ingestion.submit(
            tenant_id, data=data, filename=path.name, title=path.stem, doc_type=DocType.POLICY)
        assert not again.created
        # Restarted by the upload itself, before any worker ran: its job waits again.
        assert _state(fresh_db_url)[1] == "todo"
        [document] = await container.ingestion.run_until_done(
            tenant_id, [again.document.id], timeout_s=240)
    finally:
        await container.close()
    assert document.id == again.document.id
    assert document.status is DocStatus.READY
    status, job, chunk_count, rows = _state(fresh_db_url)
    assert (status, job) == ("ready", "succeeded")
    assert chunk_count > 20 and rows == chunk_count
