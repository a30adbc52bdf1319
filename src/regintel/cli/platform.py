"""Platform commands: migrate, serve, demo, worker."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Callable
from typing import Annotated

import typer

from regintel.cli.app import app, fail, load_settings, migrate_settings, run
from regintel.cli.readiness import announce_when_answering
from regintel.errors import RegintelError
from regintel.settings import Settings, resolve_secret_key

# How long a stop request waits for the running jobs, then for the stores to close.
STOP_GRACE_S = 20.0


@app.command("migrate")
def migrate_cmd(
    revision: Annotated[str, typer.Option(help="Target revision.")] = "head",
    downgrade: Annotated[bool, typer.Option(help="Downgrade to --revision (e.g. base).")] = False,
) -> None:
    """Create or upgrade the schema (a no-op when already at the target)."""
    from regintel.adapters.postgres.migrate import migrate
    from regintel.container import Container

    settings = load_settings()

    async def go() -> None:
        container = await Container.open(settings)
        try:
            result = await asyncio.to_thread(migrate, container.database_url, target=revision,
                                             downgrade=downgrade, **migrate_settings(settings))
        finally:
            await container.close()
        if result.changed:
            typer.echo(f"migrated: {result.before or 'base'} → {result.after or 'base'}")
        else:
            typer.echo(f"already at {result.after or 'base'}; nothing to do")

    run(go)


def _serve(settings: Settings, host: str | None, port: int | None,
           on_ready: Callable[[str], None] | None = None) -> None:
    """Serve until interrupted; ``on_ready(url)`` runs once the server answers HTTP."""
    import uvicorn

    from regintel.adapters.postgres.migrate import migrate
    from regintel.api.app import create_app
    from regintel.runtime.stores import EmbeddedStores, ServeLock

    bind_host, bind_port = host or settings.server.host, port or settings.server.port
    try:
        resolve_secret_key(settings)
        lock = ServeLock(settings.data_dir)
        lock.acquire(f"regintel serve on {bind_host}:{bind_port}")
    except RegintelError as exc:
        fail(exc)
    try:
        if settings.database_url is None:
            # The embedded database belongs to this product: keep its schema current. (The
            # app then owns the stores: uvicorn re-raises SIGTERM once it has shut down, so
            # only the app's own shutdown stops them; this stop is quiet, not a "stopped" line
            # just before the start.)
            with EmbeddedStores(settings.data_dir, postgres=True, graph=False,
                                quiet_stop=True) as endpoints:
                assert endpoints.postgres is not None
                migrate(endpoints.postgres.url(), **migrate_settings(settings))
        if on_ready is not None:
            announce_when_answering(bind_host, bind_port, on_ready)
        uvicorn.run(create_app(settings), host=bind_host, port=bind_port,
                    log_level="info", lifespan="on")
    except RegintelError as exc:
        fail(exc)
    finally:
        lock.release()


@app.command("serve")
def serve_cmd(
    host: Annotated[str | None, typer.Option(help="Bind address.")] = None,
    port: Annotated[int | None, typer.Option(help="Bind port.")] = None,
) -> None:
    """Run the HTTP API (and, with the embedded database, an in-process worker)."""
    _serve(load_settings(), host, port)


@app.command("demo")
def demo_cmd(
    host: Annotated[str | None, typer.Option(help="Bind address.")] = None,
    port: Annotated[int | None, typer.Option(help="Bind port.")] = None,
    local_model: Annotated[bool, typer.Option(
        "--local-model", help="Answer with the local model (as REGINTEL_LLM__PROVIDER=local)."
    )] = False,
) -> None:
    """Start the product on the embedded stores with a generated secret (local use only)."""
    from regintel.demo.account import demo_login

    settings = load_settings(demo=True)
    if local_model:
        settings = settings.model_copy(update={
            "llm": settings.llm.model_copy(update={"provider": "local"})})
        _say_local_speed(settings)
    email, password = demo_login(settings.data_dir)
    typer.echo(f"Starting the demo (data in {settings.data_dir.resolve()}); its address and "
               "login follow as soon as it answers…")

    def ready(url: str) -> None:
        # Printed only once the server answers: a URL shown earlier is a page that fails.
        typer.secho(f"Regulatory Intelligence Copilot demo is ready: {url}", bold=True)
        typer.echo(f"Log in as {email} with password {password}")
        typer.echo("The demo documents are being ingested; the Documents tab shows their "
                   "progress. Ctrl-C stops the demo.")

    _serve(settings, host, port, on_ready=ready)


@app.command("worker")
def worker_cmd(
    concurrency: Annotated[int, typer.Option(min=1, max=64, help="Jobs run at once.")] = 2,
) -> None:
    """Run queue jobs (ingestion, enrichment) until interrupted."""
    from regintel.container import Container

    settings = load_settings()

    async def go() -> None:
        container = await Container.open(settings)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        stuck = False
        try:
            await container.start_housekeeping()
            typer.echo(f"worker running (concurrency {concurrency}); Ctrl-C to stop", err=True)
            worker = asyncio.create_task(container.queue.run_worker(concurrency=concurrency))
            stopping = asyncio.create_task(stop.wait())
            await asyncio.wait({worker, stopping}, return_when=asyncio.FIRST_COMPLETED)
            stopping.cancel()
            if worker.done():
                worker.result()  # the worker's own failure, as it is
                return
            # A stop request: the running jobs are given a while to finish; one that does not
            # is recovered by the next worker to start (its heartbeat stops), so the process
            # never outlives the request by much more than the grace period.
            worker.cancel()
            _, pending = await asyncio.wait({worker}, timeout=STOP_GRACE_S)
            stuck = bool(pending)
        finally:
            try:
                await asyncio.wait_for(asyncio.shield(container.close()), timeout=STOP_GRACE_S)
            except TimeoutError:
                stuck = True
        if stuck:
            # asyncio's own shutdown would wait for the task that did not stop: leave now.
            typer.echo(f"worker stopped without waiting more than {STOP_GRACE_S:.0f} s for "
                       "what had not finished", err=True)
            sys.stderr.flush()
            os._exit(0)

    with contextlib.suppress(KeyboardInterrupt):  # interrupted while it was still starting
        run(go)
    typer.echo("worker stopped", err=True)


def _say_local_speed(settings: Settings) -> None:
    """What the local model costs on this machine, timed the first time (about a minute)."""
    from regintel.adapters.llm import machine_speed
    from regintel.builders import local_model_name, measure_local
    from regintel.cli.models import speed_line

    name = local_model_name(settings)
    speed = machine_speed.stored(settings.data_dir, name) if name else None
    if speed is None:
        typer.echo("Timing the local model on this machine (once)…")
        try:
            speed = asyncio.run(measure_local(settings))
        except Exception as exc:  # the demo starts anyway; the model is offered as before
            typer.secho(f"The local model could not be timed: {exc}", fg="yellow")
            return
    typer.echo(speed_line(speed))
