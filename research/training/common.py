"""How the training scripts run: on the configured stores, as ``regintel bench`` commands do,
printing a table of what was fitted or, with ``--json``, the figures."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import typer

from regintel.bench.report import render_json, render_table
from regintel.cli.app import load_settings, open_container, run
from regintel.settings import Settings

if TYPE_CHECKING:
    from regintel.container import Container

Figures = dict[str, Any]


def measure(work: Callable[[Container, Settings], Awaitable[Figures]], json_out: bool,
            title: str) -> None:
    """Run ``work`` on the configured stores; print its figures as a table, or as JSON."""
    settings = load_settings()

    async def go() -> Figures:
        async with open_container(settings) as container:
            return await work(container, settings)

    show(run(go), json_out, title)


def show(figures: Figures, json_out: bool, title: str) -> None:
    typer.echo(render_json(figures) if json_out else render_table(
        title, ["measure", "value"], [[k, v] for k, v in figures.items()]))
