"""The job queue runs real jobs through procrastinate on the embedded Postgres."""

from __future__ import annotations

import psycopg

from regintel.adapters.queue.procrastinate_queue import ProcrastinateQueue


async def test_deferred_job_runs_with_its_payload(fresh_db_url: str) -> None:
    seen: list[dict[str, object]] = []

    async def record(document_id: str, pages: int) -> None:
        seen.append({"document_id": document_id, "pages": pages})

    queue = ProcrastinateQueue(fresh_db_url)
    queue.register("test.record", record)
    await queue.open()
    try:
        job_id = await queue.defer("test.record", document_id="d-1", pages=3)
        assert job_id > 0
        await queue.run_worker(wait=False)
    finally:
        await queue.close()
    assert seen == [{"document_id": "d-1", "pages": 3}]


async def test_failing_job_is_retried(fresh_db_url: str) -> None:
    attempts: list[int] = []

    async def flaky() -> None:
        attempts.append(1)
        if len(attempts) < 2:
            raise RuntimeError("transient")

    queue = ProcrastinateQueue(fresh_db_url)
    queue.register("test.flaky", flaky, retries=3)
    await queue.open()
    try:
        job_id = await queue.defer("test.flaky")
        await queue.run_worker(wait=False)
        with psycopg.connect(fresh_db_url, autocommit=True) as conn:
            row = conn.execute("SELECT status, scheduled_at FROM procrastinate_jobs WHERE id = %s",
                               (job_id,)).fetchone()
            assert row is not None and row[0] == "todo" and row[1] is not None  # backoff set
            # Make the back-off elapse instead of sleeping through it.
            conn.execute("UPDATE procrastinate_jobs SET scheduled_at = now() WHERE id = %s",
                         (job_id,))
        await queue.run_worker(wait=False)
        with psycopg.connect(fresh_db_url) as conn:
            status = conn.execute("SELECT status FROM procrastinate_jobs WHERE id = %s",
                                  (job_id,)).fetchone()
    finally:
        await queue.close()
    assert len(attempts) == 2
    assert status is not None and status[0] == "succeeded"


async def test_queueing_lock_keeps_one_waiting_job(fresh_db_url: str) -> None:
    import procrastinate.exceptions

    async def noop() -> None:
        return None

    queue = ProcrastinateQueue(fresh_db_url)
    queue.register("test.noop", noop)
    await queue.open()
    try:
        await queue.defer("test.noop", queueing_lock="doc-1")
        try:
            await queue.defer("test.noop", queueing_lock="doc-1")
            duplicated = True
        except procrastinate.exceptions.AlreadyEnqueued:
            duplicated = False
    finally:
        await queue.close()
    assert not duplicated


async def test_a_worker_of_named_queues_leaves_other_jobs_waiting(fresh_db_url: str) -> None:
    # The CLI drains its ingestion jobs in-process; a concept job a server queued must wait
    # for a worker that knows it, not fail here as an unknown task.
    done: list[str] = []

    async def ingest() -> None:
        done.append("ingest")

    server = ProcrastinateQueue(fresh_db_url)  # knows both jobs, defers both
    server.register("test.ingest", ingest, queue="ingest")
    server.register("test.enrich", ingest, queue="concepts")
    cli = ProcrastinateQueue(fresh_db_url)  # knows only ingestion
    cli.register("test.ingest", ingest, queue="ingest")
    await server.open()
    await cli.open()
    try:
        enrich_id = await server.defer("test.enrich")
        await server.defer("test.ingest")
        await cli.run_worker(wait=False, queues=["ingest"])
        with psycopg.connect(fresh_db_url) as conn:
            row = conn.execute("SELECT status, queue_name FROM procrastinate_jobs WHERE id = %s",
                               (enrich_id,)).fetchone()
    finally:
        await cli.close()
        await server.close()
    assert done == ["ingest"]
    assert row == ("todo", "concepts")
