"""``regintel obligations list DOC``: a regulation's obligation register (issue 36), built on
first use for documents ingested before registers existed."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from regintel.cli.app import JsonOption, TenantOption, app, load_settings, open_container, run
from regintel.domain.coverage import ObligationRow
from regintel.errors import InvalidRequest, NotFound

obligations_app = typer.Typer(no_args_is_help=True,
                              help="A regulation's obligation register.")
app.add_typer(obligations_app, name="obligations")


@obligations_app.command("list")
def obligations_list(
    document: Annotated[str, typer.Argument(help="Document id, or its exact title.")],
    tenant: TenantOption = "default",
    json_out: JsonOption = False,
) -> None:
    """Every obligation of the document with its rule number, actor, list items, conditions
    and typed facts."""
    settings = load_settings()

    async def go() -> list[ObligationRow]:
        async with open_container(settings) as container:
            tenant_id = await container.documents.ensure_tenant(tenant)
            found = [d for d in await container.documents.list(tenant_id)
                     if str(d.id) == document or d.title == document]
            if not found:
                raise NotFound(f"no document {document!r} in this tenant's library",
                               hint="see `regintel documents list`")
            if len(found) > 1:
                raise InvalidRequest(f"{len(found)} documents are titled {document!r}",
                                     hint="give the document id")
            return await container.registers.get(tenant_id, found[0].id)

    rows = run(go)
    if json_out:
        typer.echo(json.dumps({"count": len(rows), "data": [r.model_dump(mode="json")
                                                            for r in rows]}, indent=2))
        return
    for row in rows:
        typer.echo(f"{row.rule or '-':<22} {row.strength:<14} {' '.join(row.text.split())[:160]}")
        for item in row.items:
            typer.echo(f"{'':<22}   {item.label} {' '.join(item.text.split())[:140]}")
        facts = [f"{f.kind}: {f.text}" for f in row.facts if f.kind != "permission"]
        if facts:
            typer.echo(f"{'':<22}   facts: {'; '.join(facts)}")
    typer.echo(f"{len(rows)} obligations")
