"""``regintel project …``: compliance projects from the terminal: create one, add entities and
links, show it, print the context payload the chat would get, and ask it offline questions."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any, TypeVar
from uuid import UUID

import typer

from regintel.cli.app import JsonOption, TenantOption, app, load_settings, open_container, run
from regintel.domain.ontology import LABEL_FIELD, EntityKind
from regintel.errors import InvalidRequest

if TYPE_CHECKING:
    from regintel.ontology.service import OntologyService

project_app = typer.Typer(no_args_is_help=True,
                          help="Compliance projects: goals, requirements, risks, tasks…")
app.add_typer(project_app, name="project")

T = TypeVar("T")
FieldOption = Annotated[list[str] | None, typer.Option(
    "--field", "-f", help="Another column as key=value (repeatable), e.g. -f due_at=2026-03-01 "
                          "-f priority=1 -f 'props={\"owner\": \"KYC ops\"}'.")]


def _with_projects(tenant: str, work: Callable[[OntologyService, UUID], Awaitable[T]]) -> T:
    settings = load_settings()

    async def go() -> T:
        async with open_container(settings) as container:
            tenant_id = await container.documents.ensure_tenant(tenant)
            return await work(container.projects, tenant_id)

    return run(go)


def _fields(pairs: list[str] | None) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise typer.BadParameter(f"expected key=value, got {pair!r}", param_hint="--field")
        fields[key.strip()] = value
    return fields


def _echo_json(data: Any) -> None:
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


@project_app.command("create")
def project_create(
    name: Annotated[str, typer.Argument(help="Project name, e.g. 'AI Act readiness'.")],
    description: Annotated[str | None, typer.Option(help="What the programme is for.")] = None,
    field: FieldOption = None,
    tenant: TenantOption = "default",
) -> None:
    """Create a project; prints its id."""
    values = {"name": name, **_fields(field)}
    if description:
        values["description"] = description

    async def work(service: OntologyService, tenant_id: UUID) -> UUID:
        return (await service.create_project(tenant_id, values)).id

    typer.echo(str(_with_projects(tenant, work)))


@project_app.command("list")
def project_list(tenant: TenantOption = "default", json_out: JsonOption = False) -> None:
    """The tenant's projects, most recently updated first."""
    from regintel.ontology.payloads import global_payload

    async def work(service: OntologyService, tenant_id: UUID) -> dict[str, Any]:
        return global_payload(await service.loader.projects(tenant_id)).data

    data = _with_projects(tenant, work)
    if json_out:
        _echo_json(data)
        return
    for p in data["projects"]:
        typer.echo(f"{p['id']}  {p['name']}  [{p.get('state_key', '')}]")


@project_app.command("add")
def project_add(
    project: Annotated[UUID, typer.Argument(help="Project id.")],
    kind: Annotated[EntityKind, typer.Argument(help="Entity kind (not 'project').")],
    label: Annotated[str, typer.Argument(help="Title, name or text (by kind).")],
    field: FieldOption = None,
    no_link: Annotated[bool, typer.Option(
        "--no-link", help="Do not link it to the project by a direct edge.")] = False,
    tenant: TenantOption = "default",
) -> None:
    """Add an entity to a project; prints its id."""
    if kind is EntityKind.PROJECT:
        raise typer.BadParameter("use `regintel project create`", param_hint="KIND")
    values = {LABEL_FIELD[kind]: label, **_fields(field)}

    async def work(service: OntologyService, tenant_id: UUID) -> UUID:
        entity = await service.create_entity(tenant_id, project, kind, values,
                                             link_to_project=not no_link)
        return entity.id

    typer.echo(str(_with_projects(tenant, work)))


@project_app.command("link")
def project_link(
    src: Annotated[UUID, typer.Argument(help="Source entity id.")],
    rel: Annotated[str, typer.Argument(help="Relation, e.g. mitigates, depends_on.")],
    dst: Annotated[UUID, typer.Argument(help="Destination entity id.")],
    tenant: TenantOption = "default",
) -> None:
    """Link two entities of the same project; prints the edge id."""
    async def work(service: OntologyService, tenant_id: UUID) -> UUID:
        return (await service.link(tenant_id, src, rel, dst)).id

    typer.echo(str(_with_projects(tenant, work)))


@project_app.command("show")
def project_show(
    project: Annotated[UUID, typer.Argument(help="Project id.")],
    tenant: TenantOption = "default",
    json_out: JsonOption = False,
) -> None:
    """The project header, its edge coverage and its graph snapshot size."""
    from regintel.ontology.payloads import project_header

    async def work(service: OntologyService, tenant_id: UUID) -> dict[str, Any]:
        ctx = await service.loader.load(tenant_id, project)
        return {"project": project_header(ctx),
                "coverage": {k: c.model_dump() for k, c in ctx.coverage.items()},
                "snapshot": {"nodes": len(ctx.snapshot.nodes), "edges": len(ctx.snapshot.edges),
                             "overflow": ctx.snapshot.overflow.model_dump()}}

    data = _with_projects(tenant, work)
    if json_out:
        _echo_json(data)
        return
    header = data["project"]
    typer.echo(f"{header['name']}  ({header['id']})  [{header.get('state_key', '')}]")
    if header.get("next_step_short"):
        typer.echo(f"next: {header['next_step_short']}")
    for plural, cov in data["coverage"].items():
        if cov["total"]:
            typer.echo(f"  {plural:<13} {cov['total']:>4} total  {cov['direct']:>4} direct  "
                       f"{cov['unlinked']:>4} unlinked")
    snap = data["snapshot"]
    typer.echo(f"snapshot: {snap['nodes']} nodes, {snap['edges']} edges "
               f"(left out: {snap['overflow']['nodes']} nodes, {snap['overflow']['edges']} "
               "edges)")


@project_app.command("context")
def project_context(
    project: Annotated[UUID | None, typer.Argument(
        help="Project id (none: the global project list).")] = None,
    focus: Annotated[UUID | None, typer.Option(help="Focus on this entity.")] = None,
    graph: Annotated[bool, typer.Option(help="With --focus: include the snapshot.")] = False,
    tenant: TenantOption = "default",
) -> None:
    """Print the context payload the chat gets (one JSON block) and its token estimate."""
    from regintel.ontology.payloads import focus_payload, global_payload, project_payload

    if focus is not None and project is None:
        raise typer.BadParameter("--focus needs a project id")

    async def work(service: OntologyService, tenant_id: UUID) -> tuple[str, int]:
        if project is None:
            payload = global_payload(await service.loader.projects(tenant_id))
        else:
            ctx = await service.loader.load(tenant_id, project)
            payload = (project_payload(ctx) if focus is None
                       else focus_payload(ctx, focus, include_graph=graph))
        return payload.text, payload.tokens

    text, tokens = _with_projects(tenant, work)
    _echo_json(json.loads(text))
    typer.echo(f"~{tokens} tokens (characters / 4)", err=True)


@project_app.command("ask")
def project_ask(
    project: Annotated[UUID, typer.Argument(help="Project id.")],
    question: Annotated[str, typer.Argument(help="e.g. 'which high risks have no mitigation?'")],
    tenant: TenantOption = "default",
    json_out: JsonOption = False,
) -> None:
    """Answer a question about the project offline, citing entity ids."""
    from regintel.ontology.answers import answer_project_question

    async def work(service: OntologyService, tenant_id: UUID) -> dict[str, Any]:
        ctx = await service.loader.load(tenant_id, project)
        answer = await answer_project_question(question, ctx, service.tools(tenant_id, ctx))
        if answer is None:
            raise InvalidRequest("that is not a question this project can answer offline",
                                 hint="ask about risks, blockers, open or overdue work, "
                                      "requirements, decisions or the project's status")
        return answer.model_dump(mode="json")

    data = _with_projects(tenant, work)
    if json_out:
        _echo_json(data)
    else:
        typer.echo(data["text"])


@project_app.command("seed-demo")
def project_seed_demo(
    regulation: Annotated[list[UUID] | None, typer.Option(
        help="Library regulation id to link (repeatable).")] = None,
    tenant: TenantOption = "default",
) -> None:
    """Create the demo project "AML programme 2026"; prints its id."""
    from regintel.ontology.demo import seed_demo_project

    async def work(service: OntologyService, tenant_id: UUID) -> UUID:
        made = await seed_demo_project(service, tenant_id, regulation_ids=regulation or ())
        return made["project"].id

    typer.echo(str(_with_projects(tenant, work)))
