"""JobQueue on procrastinate, in the same Postgres as everything else."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from regintel.ports.queue import GiveUpHandler, JobHandler

log = logging.getLogger(__name__)


class ProcrastinateQueue:
    def __init__(self, conninfo: str) -> None:
        import procrastinate

        self._app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=conninfo))
        self._opened = False

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
                                install_signal_handlers=False)
        if queues is not None:  # left out, procrastinate takes every queue (None is refused)
            options["queues"] = list(queues)
        await self._app.run_worker_async(**options)
