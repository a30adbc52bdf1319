"""``regintel bench …``: measurements printed as a table, or as JSON with ``--json``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from regintel.bench.report import render_json, render_table
from regintel.cli.app import JsonOption, bench_app, fail
from regintel.errors import RegintelError


@bench_app.command("startup")
def bench_startup(
    json_out: JsonOption = False,
    runs: Annotated[int, typer.Option(min=1, max=50, help="Warm starts to measure.")] = 5,
    data_dir: Annotated[Path | None, typer.Option(
        help="Empty directory to use (default: a temporary one).")] = None,
) -> None:
    """Cold and warm start times of the embedded Postgres and FalkorDB."""
    from regintel.bench import startup

    try:
        figures = startup.run(data_dir, warm_runs=runs)
    except RegintelError as exc:
        fail(exc)
    if json_out:
        typer.echo(render_json(figures))
    else:
        typer.echo(render_table("Embedded store start-up (seconds)",
                                ["phase", "postgres", "graph", "total"],
                                startup.table_rows(figures)))
