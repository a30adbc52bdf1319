"""The ``regintel`` command. Errors become exit codes here and nowhere else."""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Annotated, Any, NoReturn, TypeVar

import typer

from regintel import __version__
from regintel.errors import (
    ConfigurationError,
    DependencyUnavailable,
    InvalidRequest,
    RegintelError,
    UserInputNeeded,
)
from regintel.settings import Settings, get_settings, resolve_secret_key

app = typer.Typer(no_args_is_help=True, add_completion=False,
                  help="Regulatory Intelligence Copilot: grounded, cited compliance answers.")
bench_app = typer.Typer(no_args_is_help=True, help="Benchmarks: print a table, or --json figures.")
app.add_typer(bench_app, name="bench")

T = TypeVar("T")

_EXIT_CODES: tuple[tuple[type[RegintelError], int], ...] = (
    (UserInputNeeded, 5),
    (InvalidRequest, 2),
    (ConfigurationError, 3),
    (DependencyUnavailable, 4),
)


def _fail(exc: RegintelError) -> NoReturn:
    typer.secho(f"error: {exc.message}", err=True, fg=typer.colors.RED)
    if exc.hint:
        typer.echo(f"hint: {exc.hint}", err=True)
    raise typer.Exit(next((code for kind, code in _EXIT_CODES if isinstance(exc, kind)), 1))


def _run(coro_factory: Callable[[], Coroutine[Any, Any, T]]) -> T:
    try:
        return asyncio.run(coro_factory())
    except RegintelError as exc:
        _fail(exc)


def _settings(**overrides: Any) -> Settings:
    try:
        base = get_settings()
    except ValueError as exc:  # pydantic ValidationError is a ValueError
        _fail(ConfigurationError(f"invalid REGINTEL_ settings: {exc}"))
    if not overrides:
        return base
    return base.model_copy(update=overrides)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"regintel {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Debug logging.")] = False,
) -> None:
    logging.basicConfig(level=logging.DEBUG if verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    if not verbose:
        # Their INFO lines narrate every subprocess and migration step; warnings still show.
        for noisy in ("pgserver", "alembic", "procrastinate", "httpx"):
            logging.getLogger(noisy).setLevel(logging.WARNING)


@app.command("migrate")
def migrate_cmd(
    revision: Annotated[str, typer.Option(help="Target revision.")] = "head",
    downgrade: Annotated[bool, typer.Option(help="Downgrade to --revision (e.g. base).")] = False,
) -> None:
    """Create or upgrade the schema (a no-op when already at the target)."""
    from regintel.adapters.postgres.migrate import migrate
    from regintel.container import Container

    settings = _settings()

    async def go() -> None:
        container = await Container.open(settings)
        try:
            result = await asyncio.to_thread(
                migrate, container.database_url, target=revision, downgrade=downgrade,
                embedding_dim=settings.embedding.dimension, hnsw_m=settings.database.hnsw_m,
                hnsw_ef_construction=settings.database.hnsw_ef_construction)
        finally:
            await container.close()
        if result.changed:
            typer.echo(f"migrated: {result.before or 'base'} → {result.after or 'base'}")
        else:
            typer.echo(f"already at {result.after or 'base'}; nothing to do")

    _run(go)


def _serve(settings: Settings, host: str | None, port: int | None) -> None:
    import uvicorn

    from regintel.adapters.postgres.migrate import migrate
    from regintel.api.app import create_app
    from regintel.runtime.stores import ServeLock

    try:
        resolve_secret_key(settings)
        lock = ServeLock(settings.data_dir)
        lock.acquire(f"regintel serve on {host or settings.server.host}:"
                     f"{port or settings.server.port}")
    except RegintelError as exc:
        _fail(exc)
    try:
        if settings.database_url is None:
            # The embedded database belongs to this product: keep its schema current.
            from regintel.runtime.stores import EmbeddedStores

            with EmbeddedStores(settings.data_dir, postgres=True, graph=False) as endpoints:
                assert endpoints.postgres is not None
                migrate(endpoints.postgres.url(), embedding_dim=settings.embedding.dimension,
                        hnsw_m=settings.database.hnsw_m,
                        hnsw_ef_construction=settings.database.hnsw_ef_construction)
        uvicorn.run(create_app(settings), host=host or settings.server.host,
                    port=port or settings.server.port, log_level="info", lifespan="on")
    except RegintelError as exc:
        _fail(exc)
    finally:
        lock.release()


@app.command("serve")
def serve_cmd(
    host: Annotated[str | None, typer.Option(help="Bind address.")] = None,
    port: Annotated[int | None, typer.Option(help="Bind port.")] = None,
) -> None:
    """Run the HTTP API (and, with the embedded database, an in-process worker)."""
    _serve(_settings(), host, port)


@app.command("demo")
def demo_cmd(
    host: Annotated[str | None, typer.Option(help="Bind address.")] = None,
    port: Annotated[int | None, typer.Option(help="Bind port.")] = None,
) -> None:
    """Start the product on the embedded stores with a generated secret (local use only)."""
    settings = _settings(demo=True)
    typer.echo(f"Regulatory Intelligence Copilot demo: http://{host or settings.server.host}:"
               f"{port or settings.server.port}  (data in {settings.data_dir.resolve()})")
    _serve(settings, host, port)


@app.command("worker")
def worker_cmd(
    concurrency: Annotated[int, typer.Option(min=1, max=64, help="Jobs run at once.")] = 2,
) -> None:
    """Run queue jobs (ingestion, enrichment) until interrupted."""
    from regintel.container import Container

    settings = _settings()

    async def go() -> None:
        container = await Container.open(settings)
        try:
            await container.queue.open()
            typer.echo(f"worker running (concurrency {concurrency}); Ctrl-C to stop", err=True)
            await container.queue.run_worker(concurrency=concurrency)
        finally:
            await container.close()

    try:
        _run(go)
    except KeyboardInterrupt:
        typer.echo("worker stopped", err=True)


@bench_app.command("startup")
def bench_startup(
    json_out: Annotated[bool, typer.Option("--json", help="Print figures as JSON.")] = False,
    runs: Annotated[int, typer.Option(min=1, max=50, help="Warm starts to measure.")] = 5,
    data_dir: Annotated[Path | None, typer.Option(
        help="Empty directory to use (default: a temporary one).")] = None,
) -> None:
    """Cold and warm start times of the embedded Postgres and FalkorDB."""
    from regintel.bench import startup
    from regintel.bench.report import render_json, render_table

    try:
        figures = startup.run(data_dir, warm_runs=runs)
    except RegintelError as exc:
        _fail(exc)
    if json_out:
        typer.echo(render_json(figures))
    else:
        typer.echo(render_table("Embedded store start-up (seconds)",
                                ["phase", "postgres", "graph", "total"],
                                startup.table_rows(figures)))


def main() -> None:
    app()
