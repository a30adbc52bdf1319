"""The job queue port. Services register plain async handlers by name; the adapter turns them
into durable jobs (retries, one worker per job, survives restarts)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

JobHandler = Callable[..., Awaitable[None]]
# Called with the job's payload and ``error=`` once the last retry has failed.
GiveUpHandler = Callable[..., Awaitable[None]]


class WorkerLost(Exception):
    """The ``error`` a give-up handler receives when the job's last attempt did not fail but
    never finished: the process running it died (killed, out of memory, machine lost)."""


class JobQueue(Protocol):
    def register(self, name: str, handler: JobHandler, *, queue: str = "default",
                 retries: int = 3, on_give_up: GiveUpHandler | None = None,
                 priority: int = 0) -> None:
        """Make ``handler`` runnable as job ``name`` on ``queue``; keyword payloads must be
        JSON values. A handler that raises is retried with back-off ``retries`` times, then
        ``on_give_up`` runs so the caller can record the failure where users see it. A worker
        takes the waiting job of highest ``priority`` first."""

    async def defer(self, name: str, *, queueing_lock: str | None = None,
                    **payload: Any) -> int:
        """Enqueue a job and return its id; with ``queueing_lock``, at most one waits at once."""

    async def run_worker(self, *, concurrency: int = 1, wait: bool = True,
                         queues: Sequence[str] | None = None) -> None:
        """Process jobs until cancelled (``wait=False``: until the queue is empty); only
        those of ``queues`` when given. A process that drains its own jobs (the CLI waiting
        for an ingestion) names its queue, so it never takes a job whose handler it has not
        registered - which would fail that job for good. Every start first recovers the
        jobs of dead workers (``recover_stalled``); a waiting worker keeps doing so
        periodically, and proves with a heartbeat that it is alive itself."""

    async def recover_stalled(self) -> int:
        """Put the running jobs of dead workers (no heartbeat for the configured time) back in
        the queue, or give them up (``on_give_up`` with ``WorkerLost``) once their retries are
        spent; returns how many were found. Workers do this when they start and periodically
        while they run."""

    async def is_active(self, queueing_lock: str) -> bool:
        """Whether a job deferred with ``queueing_lock`` is waiting, or running on a live
        worker: False means nothing will ever finish it."""

    async def open(self) -> None: ...

    async def close(self) -> None: ...
