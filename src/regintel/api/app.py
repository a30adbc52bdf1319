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
from regintel.errors import ConfigurationError
from regintel.settings import Settings

log = logging.getLogger(__name__)


DEMO_TENANT = "default"  # the tenant the CLI acts for, so `regintel ask` sees the demo corpus


async def _load_demo_corpus(container: Container, settings: Settings) -> None:
    """Queue the demo corpus once; a missing shared-data directory only loses the corpus."""
    from regintel.demo.corpus import load_demo_corpus

    tenant_id = await container.documents.ensure_tenant(DEMO_TENANT)
    try:
        queued = await load_demo_corpus(container.ingestion, tenant_id,
                                        settings.demo_data_dir)
    except ConfigurationError as exc:
        log.warning("demo corpus not loaded: %s", exc)
        return
    log.info("demo corpus: %d documents queued or already present", len(queued))


def create_app(settings: Settings, *, run_worker: bool | None = None) -> FastAPI:
    """``run_worker`` defaults to True when the database is embedded (one process does it all)."""
    in_process_worker = settings.database_url is None if run_worker is None else run_worker

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        container = await Container.open(settings)
        app.state.container = container
        worker: asyncio.Task[None] | None = None
        try:
            if settings.demo:
                await _load_demo_corpus(container, settings)
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
