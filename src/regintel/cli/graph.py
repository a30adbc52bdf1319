"""``regintel graph …``: seed the concept graph, SKOS interchange (Turtle / JSON), and the
purge of old deletion records."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from regintel.cli.app import JsonOption, app, load_settings, open_container, run
from regintel.concepts.seed import SeedReport

graph_app = typer.Typer(no_args_is_help=True,
                        help="The concept graph: seed it, export it, import a SKOS "
                             "taxonomy, purge old deletions.")
app.add_typer(graph_app, name="graph")


class ExportFormat(StrEnum):
    TTL = "ttl"
    JSON = "json"


@graph_app.command("seed")
def seed_cmd(
    data_dir: Annotated[Path | None, typer.Option(
        "--data-dir", exists=True, file_okay=False,
        help="Shared data directory holding regulations/ (default: REGINTEL_DEMO_DATA_DIR).")
    ] = None,
    only: Annotated[list[str] | None, typer.Option(
        help="Only these regulations: gdpr, ai-act (repeatable).")] = None,
    json_out: JsonOption = False,
) -> None:
    """Concepts defined by the GDPR (Art. 4) and the AI Act (Art. 3), with their sections."""
    settings = load_settings()

    async def go() -> SeedReport:
        async with open_container(settings) as container:
            services = await container.concepts()
            return await services.seeder.seed(data_dir or settings.demo_data_dir,
                                              only=only or ())

    report = run(go)
    if json_out:
        typer.echo(json.dumps(report.as_dict()))
    else:
        typer.echo(f"seeded {report.concepts} concepts, {report.sections} sections and "
                   f"{report.edges} edges from {', '.join(report.regulations)}"
                   f" ({report.refused} refused by the ingress guard)")


@graph_app.command("export")
def export_cmd(
    fmt: Annotated[ExportFormat, typer.Option("--format", help="ttl (SKOS) or json.")] =
        ExportFormat.TTL,
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", dir_okay=False, help="Write here instead of standard output.")] = None,
) -> None:
    """The whole concept graph as SKOS Turtle or as JSON nodes and edges."""
    from regintel.concepts.skos import export_json, export_turtle

    settings = load_settings()

    async def go() -> str:
        async with open_container(settings) as container:
            client = (await container.concepts()).client
            if fmt is ExportFormat.TTL:
                return await export_turtle(client)
            return json.dumps(await export_json(client), indent=2, ensure_ascii=False)

    text = run(go)
    if output is None:
        typer.echo(text)
    else:
        output.write_text(text, encoding="utf-8")
        typer.echo(f"wrote {output}", err=True)


@graph_app.command("import")
def import_cmd(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, readable=True,
                                         help="A SKOS taxonomy in Turtle (.ttl).")],
    domain: Annotated[str, typer.Option(
        help="Domain for concepts without ri:domain (e.g. AML, TAX).")] = "GENERAL",
    jurisdiction: Annotated[str, typer.Option(
        help="Jurisdiction for concepts without ri:jurisdiction (e.g. EU).")] = "INTERNATIONAL",
    json_out: JsonOption = False,
) -> None:
    """Bring your own taxonomy: every skos:Concept through the resolver and ingress guard."""
    from regintel.concepts.resolver import CanonicalConceptResolver
    from regintel.concepts.skos import import_turtle

    settings = load_settings()
    data = file.read_text(encoding="utf-8")

    async def go() -> dict[str, object]:
        async with open_container(settings) as container:
            services = await container.concepts()
            # Imported concepts are public knowledge, marked as such: what chats capture is
            # "capture", and an upgrade moves that out of the shared graph.
            resolver = CanonicalConceptResolver(services.client, services.writer,
                                                source="skos")
            report = await import_turtle(data, resolver, services.writer,
                                         domain=domain, jurisdiction=jurisdiction)
            return report.as_dict()

    figures = run(go)
    typer.echo(json.dumps(figures) if json_out else
               f"imported {figures['concepts']} concepts and {figures['edges']} edges "
               f"({figures['refused']} refused, {figures['skipped']} without a prefLabel)")


@graph_app.command("purge")
def purge_cmd(
    older_than_days: Annotated[int | None, typer.Option(
        "--older-than-days", min=0,
        help="Forget deletions older than this (default: the retention setting, "
             "REGINTEL_CONCEPTS__TOMBSTONE_RETENTION_DAYS).")] = None,
    json_out: JsonOption = False,
) -> None:
    """Forget old graph deletions (a worker does this when it starts). A change-stream
    reader whose cursor is older is then told to reload the graph instead of replaying."""
    from regintel.concepts.changes import purge_deletions

    settings = load_settings()
    days = settings.concepts.tombstone_retention_days if older_than_days is None \
        else older_than_days

    async def go() -> int:
        async with open_container(settings) as container:
            return await purge_deletions(container.graph, older_than_days=days)

    gone = run(go)
    typer.echo(json.dumps({"purged": gone, "older_than_days": days}) if json_out else
               f"purged {gone} deletion record(s) older than {days} day(s)")
