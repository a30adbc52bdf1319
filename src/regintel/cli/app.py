"""The Typer app, its error-to-exit-code mapping, and helpers every command shares.

Errors become exit codes here and nowhere else: 2 bad request, 3 configuration, 4 dependency
down, 5 input needed, 1 anything else."""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypedDict, TypeVar

import typer

from regintel import __version__
from regintel.errors import (
    ConfigurationError,
    DependencyUnavailable,
    InvalidRequest,
    RegintelError,
    UserInputNeeded,
)
from regintel.settings import Settings, get_settings

if TYPE_CHECKING:
    from regintel.container import Container

app = typer.Typer(no_args_is_help=True, add_completion=False,
                  help="Regulatory Intelligence Copilot: grounded, cited compliance answers.")
bench_app = typer.Typer(no_args_is_help=True, help="Benchmarks: print a table, or --json figures.")
app.add_typer(bench_app, name="bench")
documents_app = typer.Typer(no_args_is_help=True, help="List and delete library documents.")
app.add_typer(documents_app, name="documents")

T = TypeVar("T")

_EXIT_CODES: tuple[tuple[type[RegintelError], int], ...] = (
    (UserInputNeeded, 5),
    (InvalidRequest, 2),
    (ConfigurationError, 3),
    (DependencyUnavailable, 4),
)

TenantOption = Annotated[str, typer.Option(
    "--tenant", envvar="REGINTEL_CLI_TENANT", help="Tenant slug the command acts for.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]


def fail(exc: RegintelError) -> NoReturn:
    typer.secho(f"error: {exc.message}", err=True, fg=typer.colors.RED)
    if exc.hint:
        typer.echo(f"hint: {exc.hint}", err=True)
    raise typer.Exit(next((code for kind, code in _EXIT_CODES if isinstance(exc, kind)), 1))


def run(coro_factory: Callable[[], Coroutine[Any, Any, T]]) -> T:
    try:
        return asyncio.run(coro_factory())
    except RegintelError as exc:
        fail(exc)


def load_settings(**overrides: Any) -> Settings:
    try:
        base = get_settings()
    except ValueError as exc:  # pydantic ValidationError is a ValueError
        fail(ConfigurationError(f"invalid REGINTEL_ settings: {exc}"))
    return base.model_copy(update=overrides) if overrides else base


class MigrateOptions(TypedDict):
    embedding_dim: int
    hnsw_m: int
    hnsw_ef_construction: int


def migrate_settings(settings: Settings) -> MigrateOptions:
    return {"embedding_dim": settings.embedding.dimension, "hnsw_m": settings.database.hnsw_m,
            "hnsw_ef_construction": settings.database.hnsw_ef_construction}


@asynccontextmanager
async def open_container(settings: Settings) -> AsyncIterator[Container]:
    """The container with a current schema: the embedded database is ours, so it is migrated
    on the spot; an external one must have been migrated by ``regintel migrate``."""
    from regintel.adapters.postgres.migrate import current_revision, head_revision, migrate
    from regintel.container import Container

    container = await Container.open(settings)
    try:
        if settings.database_url is None:
            await asyncio.to_thread(migrate, container.database_url, **migrate_settings(settings))
        elif await asyncio.to_thread(current_revision, container.database_url) != head_revision():
            raise ConfigurationError("the database schema is not current",
                                     hint="run `regintel migrate` first")
        yield container
    finally:
        await container.close()


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
        for noisy in ("pgserver", "alembic", "procrastinate", "httpx", "sentence_transformers"):
            logging.getLogger(noisy).setLevel(logging.WARNING)
