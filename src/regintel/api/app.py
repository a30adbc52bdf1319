"""FastAPI app factory. Stores and clients are opened once in the lifespan; in the embedded
default an in-process worker runs the job queue beside the API."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from fastapi import FastAPI
from fastapi.routing import APIRoute

from regintel import __version__
from regintel.api import errors, openapi, security
from regintel.api.accounts.store import AccountStore
from regintel.api.deps import ChatGate
from regintel.api.ratelimit import RateLimiter
from regintel.api.routes import (
    auth,
    changes,
    chat,
    conversations,
    documents,
    faq,
    graph,
    health,
    members,
    obligations,
    projects,
    reviews,
    usage,
)
from regintel.container import Container
from regintel.errors import ConfigurationError
from regintel.ports.embedder import Embedder
from regintel.settings import Settings
from regintel.web import install as install_web

log = logging.getLogger(__name__)


DEMO_TENANT = "default"  # the tenant the CLI acts for, so `regintel ask` sees the demo corpus


async def _load_demo(container: Container, settings: Settings) -> None:
    """Queue the demo corpus once, seed the concept graph (the GDPR's and AI Act's definitions,
    the ADGM AML rulebook's glossary) and the demo compliance project, and make sure the demo
    login works. Each part is best effort: a missing shared-data directory or a graph hiccup
    loses only that part."""
    from regintel.api.accounts.store import AccountStore
    from regintel.demo.account import DEMO_PROFILE, demo_login
    from regintel.demo.corpus import load_demo_corpus
    from regintel.ontology.demo import DEMO_PROJECT_NAME, seed_demo_project

    tenant_id = await container.documents.ensure_tenant(DEMO_TENANT)
    email, password = demo_login(settings.data_dir)
    await AccountStore(container.database).ensure_demo_user(
        tenant_id, email=email, password=password, profile=DEMO_PROFILE)
    try:
        queued = await load_demo_corpus(container.ingestion, tenant_id,
                                        settings.demo_data_dir)
        log.info("demo corpus: %d documents queued or already present", len(queued))
    except ConfigurationError as exc:
        log.warning("demo corpus not loaded: %s", exc)
        queued = []
    try:
        report = await (await container.concepts()).seeder.seed(settings.demo_data_dir)
        log.info("demo concept graph: %s", report)
    except Exception:  # the graph enriches the demo; the demo runs without it
        log.exception("demo concept graph not seeded")
    projects = container.projects
    if not any(p.label == DEMO_PROJECT_NAME for p in await projects.loader.projects(tenant_id)):
        regulations = [s.document.id for s in queued
                       if s.document.doc_type.value == "regulation"]
        await seed_demo_project(projects, tenant_id, regulation_ids=regulations)


def create_app(settings: Settings, *, run_worker: bool | None = None,
               embedder: Embedder | None = None) -> FastAPI:
    """``run_worker`` defaults to True when the database is embedded (one process does it all);
    ``embedder`` shares an already-loaded model (tests, benchmarks)."""
    in_process_worker = settings.database_url is None if run_worker is None else run_worker

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        container = await Container.open(settings, embedder=embedder)
        app.state.container = container
        app.state.accounts = AccountStore(container.database)
        app.state.chat_gate = gate = ChatGate(container)
        # Build the chat service (checkpoint pool, guardrail models) before the first turn
        # needs it, without delaying start-up; requests that come first wait on the same gate.
        warmup = asyncio.create_task(gate.warm_up(), name="regintel-chat-warmup")
        worker: asyncio.Task[None] | None = None
        # The local model timed once on this machine, so the engine selector can say what a
        # turn costs here (a no-op when it was timed before or no local model answers).
        timing = asyncio.create_task(container.measure_local_model(),
                                     name="regintel-local-model-timing")
        try:
            if settings.demo:
                await _load_demo(container, settings)
            if in_process_worker:
                await container.start_housekeeping()
                worker = asyncio.create_task(container.queue.run_worker(concurrency=2),
                                             name="regintel-worker")
            yield
        finally:
            # Let it finish: cancelling it half-way could leave a pool open behind us.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(warmup, timeout=60)
            timing.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await timing
            if worker is not None:
                worker.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await worker
            await container.close()

    app = FastAPI(title="Regulatory Intelligence Copilot", version=__version__, lifespan=lifespan,
                  description="Grounded chat over a compliance team's regulations and "
                  "policies. Sign in with a session cookie (browsers, CSRF header on writes) "
                  "or a bearer token (API clients); errors are application/problem+json.")
    app.state.settings = settings
    app.state.limiter = RateLimiter(settings.api)
    errors.install(app)
    security.install(app, settings.api)
    routers = [module.router for module in (health, auth, members, documents, changes,
                                            obligations, conversations, reviews, chat, usage,
                                            faq, graph, projects)]
    for router in routers:
        app.include_router(router)
    openapi.install(app, [route for router in routers for route in router.routes
                          if isinstance(route, APIRoute)],
                    # The chat refuses more tagged documents than this setting allows.
                    limits={("ChatCreate", "tagged_doc_ids"): {
                        "maxItems": settings.retrieval.max_scope_documents}})
    install_web(app)  # the browser UI at / (static files shipped with the package)
    return app
