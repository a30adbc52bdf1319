"""JobQueue on procrastinate, in the same Postgres as everything else.

Crash safety rests on procrastinate's worker heartbeats (``procrastinate_workers``): a job stays
``doing`` when its process is killed, so every worker, when it starts and then periodically,
hands the jobs of workers silent for ``stalled_after_s`` back to the queue, or gives them up
once their retries are spent (their owners' ``on_give_up`` records why).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from regintel.ports.queue import GiveUpHandler, JobHandler, WorkerLost

log = logging.getLogger(__name__)

# A job is alive while it waits, or while it runs on a worker whose heartbeat is recent.
_ACTIVE_SQL = """
SELECT EXISTS (
    SELECT FROM procrastinate_jobs j
    LEFT JOIN procrastinate_workers w ON w.id = j.worker_id
    WHERE j.queueing_lock = %(lock)s
      AND (j.status = 'todo'
           OR (j.status = 'doing'
               AND w.last_heartbeat >= now() - make_interval(secs => %(stalled_after_s)s)))
) AS active
"""


@dataclass(frozen=True)
class _Policy:
    retries: int
    on_give_up: GiveUpHandler | None


class ProcrastinateQueue:
    def __init__(self, conninfo: str, *, heartbeat_s: float = 10.0,
                 stalled_after_s: float = 60.0, recover_every_s: float = 30.0) -> None:
        import procrastinate

        self._app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=conninfo))
        self._opened = False
        self._heartbeat_s = heartbeat_s
        self._stalled_after_s = stalled_after_s
        self._recover_every_s = recover_every_s
        self._policies: dict[str, _Policy] = {}

    def register(self, name: str, handler: JobHandler, *, queue: str = "default",
                 retries: int = 3, on_give_up: GiveUpHandler | None = None,
                 priority: int = 0) -> None:
        import procrastinate

        async def run(context: procrastinate.JobContext, /, **payload: Any) -> None:
            try:
                await handler(**payload)
            except Exception as exc:
                attempts = context.job.attempts if context.job else 0
                if attempts >= retries:  # procrastinate will not retry this one
                    log.exception("job %s gave up after %d attempts", name, attempts + 1)
                    if on_give_up is not None:
                        await on_give_up(**payload, error=exc)
                raise

        strategy = procrastinate.RetryStrategy(max_attempts=retries, exponential_wait=2)
        self._app.task(name=name, queue=queue, retry=strategy if retries else False,
                       pass_context=True, priority=priority)(run)
        self._policies[name] = _Policy(retries, on_give_up)

    async def open(self) -> None:
        if not self._opened:
            await self._app.open_async()
            self._opened = True

    async def close(self) -> None:
        if self._opened:
            await self._app.close_async()
            self._opened = False

    async def defer(self, name: str, *, queueing_lock: str | None = None, **payload: Any) -> int:
        deferrer = self._app.configure_task(name, allow_unknown=False, queueing_lock=queueing_lock)
        return int(await deferrer.defer_async(**payload))

    async def run_worker(self, *, concurrency: int = 1, wait: bool = True,
                         queues: Sequence[str] | None = None) -> None:
        from procrastinate.app import WorkerOptions

        options = WorkerOptions(concurrency=concurrency, wait=wait,
                                install_signal_handlers=False,
                                update_heartbeat_interval=self._heartbeat_s,
                                stalled_worker_timeout=self._stalled_after_s)
        if queues is not None:  # left out, procrastinate takes every queue (None is refused)
            options["queues"] = list(queues)
        await self._recover_logged()
        if not wait:  # a drain: the start-up recovery is all it needs
            await self._app.run_worker_async(**options)
            return
        sweeper = asyncio.create_task(self._recover_periodically(), name="regintel-recover")
        try:
            await self._app.run_worker_async(**options)
        finally:
            sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sweeper

    async def recover_stalled(self) -> int:
        import procrastinate.exceptions
        from procrastinate.jobs import Status

        manager = self._app.job_manager
        stalled = await manager.get_stalled_jobs(seconds_since_heartbeat=self._stalled_after_s)
        found = 0
        for job in stalled:
            policy = self._policies.get(job.task_name)
            if policy is None or job.id is None:
                continue  # a worker that knows the job (and what giving up means) takes it
            found += 1
            try:
                if job.attempts >= policy.retries:
                    # Finishing first makes exactly one recovering worker run the give-up.
                    await manager.finish_job(job, status=Status.FAILED, delete_job=False)
                    log.warning("job %s %s: its worker died on the last attempt; given up",
                                job.task_name, job.id)
                    await self._give_up(policy, job.task_kwargs, job.id)
                    continue
                try:
                    await manager.retry_job(job)
                    log.warning("job %s %s: its worker died; retried", job.task_name, job.id)
                except procrastinate.exceptions.UniqueViolation:
                    # The same work was queued again meanwhile (same queueing lock): that one
                    # stands for this one.
                    await manager.finish_job(job, status=Status.FAILED, delete_job=False)
                    log.warning("job %s %s: its worker died; a new one already waits",
                                job.task_name, job.id)
            except procrastinate.exceptions.ConnectorException as exc:
                # Another worker recovered it first (it is no longer `doing`).
                log.info("job %s not recovered here: %s", job.id, exc)
        return found

    @staticmethod
    async def _give_up(policy: _Policy, payload: dict[str, Any], job_id: int) -> None:
        if policy.on_give_up is None:
            return
        try:
            await policy.on_give_up(**payload, error=WorkerLost(
                f"the worker running job {job_id} stopped without finishing it"))
        except Exception:  # the job is failed already; the other stalled jobs still need us
            log.exception("give-up handler of job %s failed", job_id)

    async def is_active(self, queueing_lock: str) -> bool:
        row = await self._app.connector.execute_query_one_async(
            _ACTIVE_SQL, lock=queueing_lock, stalled_after_s=self._stalled_after_s)
        return bool(row["active"])

    async def _recover_logged(self) -> None:
        try:
            await self.recover_stalled()
        except Exception:  # recovery is housekeeping: it must never stop a worker
            log.exception("could not recover the jobs of stopped workers")

    async def _recover_periodically(self) -> None:
        while True:
            await asyncio.sleep(self._recover_every_s)
            await self._recover_logged()
