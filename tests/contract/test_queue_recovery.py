"""A job whose worker process is SIGKILLed mid-run stays `doing` forever unless someone notices
the dead worker: its heartbeat stops, and recovery retries the job, or gives it up once its
retries are spent."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time

import psycopg
import pytest

from regintel.adapters.queue.procrastinate_queue import ProcrastinateQueue
from regintel.ports.queue import WorkerLost

HEARTBEAT_S, STALLED_AFTER_S = 0.5, 2.0

# A worker process whose job runs until the process is killed.
HANGING_WORKER = r"""
import asyncio, sys
from regintel.adapters.queue.procrastinate_queue import ProcrastinateQueue

async def main() -> None:
    queue = ProcrastinateQueue(sys.argv[1], heartbeat_s=float(sys.argv[3]),
                               stalled_after_s=float(sys.argv[4]))
    async def hang(**payload: object) -> None:
        print("RUNNING", flush=True)
        await asyncio.sleep(3600)
    queue.register("test.work", hang, retries=int(sys.argv[2]))
    await queue.open()
    await queue.run_worker()

asyncio.run(main())
"""


def _job(url: str, job_id: int) -> tuple[str, int, int | None]:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT status, attempts, worker_id FROM procrastinate_jobs "
                           "WHERE id = %s", (job_id,)).fetchone()
    assert row is not None
    return row[0], row[1], row[2]


def _kill_worker_mid_job(url: str, retries: int) -> None:
    worker = subprocess.Popen(
        [sys.executable, "-c", HANGING_WORKER, url, str(retries), str(HEARTBEAT_S),
         str(STALLED_AFTER_S)], stdout=subprocess.PIPE, text=True)
    try:
        assert worker.stdout is not None
        assert worker.stdout.readline().strip() == "RUNNING"
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=30)
        if worker.stdout:
            worker.stdout.close()


async def _recover_once_stalled(queue: ProcrastinateQueue) -> float:
    """Recover until the dead worker's job is found; returns the seconds it took."""
    start = time.monotonic()
    while time.monotonic() - start < 10 * STALLED_AFTER_S:
        if await queue.recover_stalled():
            return time.monotonic() - start
        await asyncio.sleep(0.2)
    raise AssertionError("the dead worker's job was never recovered")


@pytest.mark.slow
async def test_job_of_a_killed_worker_is_retried(fresh_db_url: str) -> None:
    runs: list[str] = []

    async def work(document_id: str) -> None:
        runs.append(document_id)

    queue = ProcrastinateQueue(fresh_db_url, heartbeat_s=HEARTBEAT_S,
                               stalled_after_s=STALLED_AFTER_S)
    queue.register("test.work", work, retries=1)
    await queue.open()
    try:
        job_id = await queue.defer("test.work", queueing_lock="doc-1", document_id="doc-1")
        await asyncio.to_thread(_kill_worker_mid_job, fresh_db_url, 1)
        assert _job(fresh_db_url, job_id)[0] == "doing"
        # Until its heartbeat is overdue the killed worker cannot be told from a busy one.
        assert await queue.is_active("doc-1")
        waited = await _recover_once_stalled(queue)
        assert waited > STALLED_AFTER_S / 2
        assert _job(fresh_db_url, job_id)[:2] == ("todo", 1)
        assert await queue.is_active("doc-1")
        await queue.run_worker(wait=False)
    finally:
        await queue.close()
    assert runs == ["doc-1"]
    assert _job(fresh_db_url, job_id)[0] == "succeeded"


@pytest.mark.slow
async def test_job_of_a_killed_worker_is_given_up_when_retries_are_spent(
        fresh_db_url: str) -> None:
    runs: list[str] = []
    given_up: list[tuple[str, BaseException]] = []

    async def work(document_id: str) -> None:
        runs.append(document_id)

    async def give_up(document_id: str, error: BaseException) -> None:
        given_up.append((document_id, error))

    queue = ProcrastinateQueue(fresh_db_url, heartbeat_s=HEARTBEAT_S,
                               stalled_after_s=STALLED_AFTER_S)
    queue.register("test.work", work, retries=0, on_give_up=give_up)
    await queue.open()
    try:
        job_id = await queue.defer("test.work", queueing_lock="doc-2", document_id="doc-2")
        await asyncio.to_thread(_kill_worker_mid_job, fresh_db_url, 0)
        await _recover_once_stalled(queue)
        assert await queue.recover_stalled() == 0  # recovered once, not again
        assert not await queue.is_active("doc-2")
        await queue.run_worker(wait=False)
    finally:
        await queue.close()
    assert runs == []
    assert [(d, type(e)) for d, e in given_up] == [("doc-2", WorkerLost)]
    assert _job(fresh_db_url, job_id)[0] == "failed"


@pytest.mark.slow
async def test_a_worker_recovers_stalled_jobs_when_it_starts(fresh_db_url: str) -> None:
    # Nobody calls recover_stalled: starting a worker is enough to run the dead worker's job.
    runs: list[str] = []

    async def work(document_id: str) -> None:
        runs.append(document_id)

    queue = ProcrastinateQueue(fresh_db_url, heartbeat_s=HEARTBEAT_S,
                               stalled_after_s=STALLED_AFTER_S)
    queue.register("test.work", work, retries=2)
    await queue.open()
    try:
        job_id = await queue.defer("test.work", document_id="doc-3")
        await asyncio.to_thread(_kill_worker_mid_job, fresh_db_url, 2)
        await asyncio.sleep(STALLED_AFTER_S + 0.5)
        await queue.run_worker(wait=False)
    finally:
        await queue.close()
    assert runs == ["doc-3"]
    assert _job(fresh_db_url, job_id)[:2] == ("succeeded", 2)  # the killed run, then this one
