"""FastAPI app factory. Stores and clients are opened once in the lifespan; in the embedded
default an in-process worker runs the job queue beside the API."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from fastapi import FastAPI

from regintel import __version__
from regintel.api import errors
from regintel.api.routes import health
from regintel.container import Container
from regintel.settings import Settings

log = logging.getLogger(__name__)


def create_app(settings: Settings, *, run_worker: bool | None = None) -> FastAPI:
    """``run_worker`` defaults to True when the database is embedded (one process does it all)."""
    in_process_worker = settings.database_url is None if run_worker is None else run_worker

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        container = await Container.open(settings)
        app.state.container = container
        worker: asyncio.Task[None] | None = None
        try:
            if in_process_worker:
                container.register_jobs()
                worker = asyncio.create_task(container.queue.run_worker(concurrency=2),
                                             name="regintel-worker")
            yield
        finally:
            if worker is not None:
                worker.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await worker
            await container.close()

    app = FastAPI(title="Regulatory Intelligence Copilot", version=__version__, lifespan=lifespan)
    errors.install(app)
    app.include_router(health.router)
    return app
