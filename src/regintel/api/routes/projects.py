"""Compliance projects: the ontology CRUD (projects, their entities and links), the snapshot
and coverage the project page shows, the chat's context preview, and work from audit findings.

Everything is scoped to the session's tenant: another tenant's project, entity or link id is
simply not found (404), and an entity reached through the wrong project is not found either.
Every member reads and works in every project (creates and edits entities and links); deleting
is kept to owners, admins and the creators concerned (``api/permissions.py``): 403 otherwise."""

from __future__ import annotations

from typing import Annotated, Any
from uuid import UUID

from fastapi import APIRouter, Query, status

from regintel.api.accounts.store import Principal
from regintel.api.deps import ContainerDep, PrincipalDep
from regintel.api.permissions import (
    manages_project,
    may_delete_entity,
    may_delete_project,
    may_unlink,
)
from regintel.api.schemas.projects import (
    ContextPreview,
    EntitiesPublic,
    EntityCreate,
    EntityPublic,
    EntityUpdate,
    LinkCreate,
    LinkPublic,
    LinksPublic,
    MemberKind,
    ProjectCreate,
    ProjectPublic,
    ProjectsPublic,
    ProjectUpdate,
    RelationRule,
    RelationRulesPublic,
    SnapshotPublic,
    WorkFromFinding,
)
from regintel.container import Container
from regintel.domain.ontology import MEMBER_KINDS, RELATION_RULES, Edge, Entity, EntityKind
from regintel.errors import NotFound
from regintel.ontology.formatters import full
from regintel.ontology.payloads import focus_payload, project_payload

router = APIRouter(prefix="/api", tags=["projects"])
_PROBLEMS: dict[int | str, dict[str, object]] = {
    401: {"description": "Not signed in"},
    404: {"description": "No such project (or entity, or link) in this organisation"},
}
_DELETE_PROBLEMS: dict[int | str, dict[str, object]] = {
    **_PROBLEMS, 403: {"description": "Needs the owner or admin role, or to be the creator "
                       "concerned"},
}
_WRITE_PROBLEMS: dict[int | str, dict[str, object]] = {
    **_PROBLEMS, 400: {"description": "Unknown field, bad value, or a relation the ontology "
                       "does not allow"},
}
# A new entity without a state starts in the usual first state of its kind.
_FIRST_STATE = {EntityKind.TASK: "todo", EntityKind.RISK: "open",
                EntityKind.REQUIREMENT: "open", EntityKind.DECISION: "proposed",
                EntityKind.SIGNAL: "new"}
MAX_ENTITIES = 1000


def _project_public(project: Entity) -> ProjectPublic:
    return ProjectPublic.model_validate(project.data)


def _entity_public(entity: Entity) -> EntityPublic:
    data = full(entity)
    data.pop("kind", None)
    return EntityPublic(id=entity.id, kind=entity.kind, project_id=entity.project_id,
                        label=entity.label, data=data)


def _link_public(edge: Edge) -> LinkPublic:
    return LinkPublic.model_validate(edge.model_dump())


async def _project(container: Container, principal: Principal, project_id: UUID) -> Entity:
    return await container.projects.project(principal.tenant_id, project_id)


async def _member(container: Container, principal: Principal, project_id: UUID,
                  entity_id: UUID, kind: EntityKind | None = None) -> Entity:
    """The entity of this project (and kind), or NotFound — never another project's."""
    await _project(container, principal, project_id)
    entity = await container.projects.entity(principal.tenant_id, entity_id, kind)
    if entity.kind is EntityKind.PROJECT or entity.project_id != project_id:
        raise NotFound(f"no {kind.value if kind else 'entity'} {entity_id} in project "
                       f"{project_id}")
    return entity


# -- projects ----------------------------------------------------------------------------------
@router.get("/projects/relations", response_model=RelationRulesPublic,
            operation_id="list_project_relations", responses={401: _PROBLEMS[401]})
async def list_relations(_: PrincipalDep) -> RelationRulesPublic:
    """The relations the ontology allows, by source and destination kind."""
    data = [RelationRule(src_kind=s, rel=r, dst_kind=d) for s, r, d in RELATION_RULES]
    return RelationRulesPublic(data=data, count=len(data))


@router.get("/projects", response_model=ProjectsPublic, operation_id="list_projects",
            responses={401: _PROBLEMS[401]})
async def list_projects(principal: PrincipalDep, container: ContainerDep) -> ProjectsPublic:
    """The organisation's projects, most recently updated first."""
    found = await container.projects.loader.projects(principal.tenant_id)
    found.sort(key=lambda p: p.data["updated_at"], reverse=True)
    return ProjectsPublic(data=[_project_public(p) for p in found], count=len(found))


@router.post("/projects", response_model=ProjectPublic, status_code=status.HTTP_201_CREATED,
             operation_id="create_project", responses=_WRITE_PROBLEMS)
async def create_project(body: ProjectCreate, principal: PrincipalDep,
                         container: ContainerDep) -> ProjectPublic:
    fields = body.model_dump(exclude_none=True)
    created = await container.projects.create_project(principal.tenant_id, fields,
                                                      created_by=principal.user_id)
    return _project_public(created)


@router.get("/projects/{project_id}", response_model=ProjectPublic,
            operation_id="read_project", responses=_PROBLEMS)
async def read_project(project_id: UUID, principal: PrincipalDep,
                       container: ContainerDep) -> ProjectPublic:
    return _project_public(await _project(container, principal, project_id))


@router.patch("/projects/{project_id}", response_model=ProjectPublic,
              operation_id="update_project", responses=_WRITE_PROBLEMS)
async def update_project(project_id: UUID, body: ProjectUpdate, principal: PrincipalDep,
                         container: ContainerDep) -> ProjectPublic:
    await _project(container, principal, project_id)
    updated = await container.projects.update_entity(principal.tenant_id, project_id,
                                                     body.model_dump(exclude_unset=True))
    return _project_public(updated)


@router.delete("/projects/{project_id}", status_code=status.HTTP_204_NO_CONTENT,
               operation_id="delete_project", responses=_DELETE_PROBLEMS)
async def delete_project(project_id: UUID, principal: PrincipalDep,
                         container: ContainerDep) -> None:
    """Soft delete: the project drops out of every list and snapshot. Owners, admins and
    the project's creator only."""
    may_delete_project(principal, await _project(container, principal, project_id))
    await container.projects.delete_entity(principal.tenant_id, project_id)


@router.get("/projects/{project_id}/snapshot", response_model=SnapshotPublic,
            operation_id="read_project_snapshot", responses=_PROBLEMS)
async def read_snapshot(project_id: UUID, principal: PrincipalDep,
                        container: ContainerDep) -> SnapshotPublic:
    """The bounded graph snapshot (BFS from the project to depth 2, capped, with overflow
    counts) and coverage per kind (total, directly linked to the project, unlinked)."""
    ctx = await container.projects.loader.load(principal.tenant_id, project_id)
    return SnapshotPublic(project=_project_public(ctx.project), snapshot=ctx.snapshot,
                          coverage=ctx.coverage,
                          counts={k.plural: len(ctx.members.get(k, [])) for k in MEMBER_KINDS})


@router.get("/projects/{project_id}/context", response_model=ContextPreview,
            operation_id="read_project_context", responses=_PROBLEMS)
async def read_context(
    project_id: UUID, principal: PrincipalDep, container: ContainerDep,
    focus: Annotated[UUID | None, Query(description="An entity of the project: the focused "
                                        "payload (entity, relationships, linked entities).")
                     ] = None,
    graph: Annotated[bool, Query(description="With `focus`: include the snapshot too.")
                     ] = False,
    token_budget: Annotated[int | None, Query(ge=200, le=200_000, description="Shrink the "
                                              "entity slices until the block fits.")] = None,
) -> ContextPreview:
    """The context block the chat's prompt gets when a conversation is scoped to this
    project: the workspace payload (header, graph JSON, entity slices, coverage notes), or the
    focus payload for one entity, with its token estimate."""
    ctx = await container.projects.loader.load(principal.tenant_id, project_id)
    payload = focus_payload(ctx, focus, include_graph=graph) if focus is not None \
        else project_payload(ctx, token_budget=token_budget)
    return ContextPreview(kind=payload.kind, tokens=payload.tokens,
                          characters=len(payload.text), data=payload.data)


# -- entities ----------------------------------------------------------------------------------
@router.get("/projects/{project_id}/entities", response_model=EntitiesPublic,
            operation_id="list_project_entities", responses=_PROBLEMS)
async def list_entities(
    project_id: UUID, principal: PrincipalDep, container: ContainerDep,
    kind: Annotated[MemberKind | None, Query(description="Only this kind.")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_ENTITIES)] = 200,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> EntitiesPublic:
    """The project's live entities (all kinds, or one), full view, oldest first by kind;
    `count` is the total before paging."""
    await _project(container, principal, project_id)
    kinds = [EntityKind(kind)] if kind else list(MEMBER_KINDS)
    rows: list[Entity] = []
    for k in kinds:
        found = await container.projects.store.members(principal.tenant_id, project_id, k)
        rows += sorted(found, key=lambda e: e.data["created_at"])
    page = rows[offset:offset + limit]
    return EntitiesPublic(data=[_entity_public(e) for e in page], count=len(rows))


@router.post("/projects/{project_id}/entities/{kind}", response_model=EntityPublic,
             status_code=status.HTTP_201_CREATED, operation_id="create_project_entity",
             responses=_WRITE_PROBLEMS)
async def create_entity(project_id: UUID, kind: MemberKind, body: EntityCreate,
                        principal: PrincipalDep, container: ContainerDep) -> EntityPublic:
    """A goal, risk, task… in the project (by default linked to it directly)."""
    entity_kind = EntityKind(kind)
    fields: dict[str, Any] = dict(body.fields)
    if not fields.get("state_key"):
        fields["state_key"] = _FIRST_STATE.get(entity_kind, "active")
    created = await container.projects.create_entity(
        principal.tenant_id, project_id, entity_kind, fields,
        link_to_project=body.link_to_project, created_by=principal.user_id)
    return _entity_public(created)


@router.get("/projects/{project_id}/entities/{kind}/{entity_id}", response_model=EntityPublic,
            operation_id="read_project_entity", responses=_PROBLEMS)
async def read_entity(project_id: UUID, kind: MemberKind, entity_id: UUID,
                      principal: PrincipalDep, container: ContainerDep) -> EntityPublic:
    return _entity_public(await _member(container, principal, project_id, entity_id,
                                        EntityKind(kind)))


@router.patch("/projects/{project_id}/entities/{kind}/{entity_id}",
              response_model=EntityPublic, operation_id="update_project_entity",
              responses=_WRITE_PROBLEMS)
async def update_entity(project_id: UUID, kind: MemberKind, entity_id: UUID,
                        body: EntityUpdate, principal: PrincipalDep,
                        container: ContainerDep) -> EntityPublic:
    await _member(container, principal, project_id, entity_id, EntityKind(kind))
    updated = await container.projects.update_entity(principal.tenant_id, entity_id,
                                                     body.fields)
    return _entity_public(updated)


@router.delete("/projects/{project_id}/entities/{kind}/{entity_id}",
               status_code=status.HTTP_204_NO_CONTENT, operation_id="delete_project_entity",
               responses=_DELETE_PROBLEMS)
async def delete_entity(project_id: UUID, kind: MemberKind, entity_id: UUID,
                        principal: PrincipalDep, container: ContainerDep) -> None:
    """Soft delete; its links drop out of every snapshot. Owners, admins, the project's
    creator and the entity's creator only."""
    entity = await _member(container, principal, project_id, entity_id, EntityKind(kind))
    may_delete_entity(principal, await _project(container, principal, project_id), entity)
    await container.projects.delete_entity(principal.tenant_id, entity_id)


# -- links -------------------------------------------------------------------------------------
async def _live_links(container: Container, principal: Principal,
                      project_id: UUID) -> list[Edge]:
    ctx = await container.projects.loader.load(principal.tenant_id, project_id)
    edges = await container.projects.store.project_edges(principal.tenant_id, project_id)
    return [e for e in edges if e.src_id in ctx.index and e.dst_id in ctx.index]


@router.get("/projects/{project_id}/links", response_model=LinksPublic,
            operation_id="list_project_links", responses=_PROBLEMS)
async def list_links(project_id: UUID, principal: PrincipalDep,
                     container: ContainerDep) -> LinksPublic:
    """Every link between live entities of the project."""
    links = await _live_links(container, principal, project_id)
    return LinksPublic(data=[_link_public(e) for e in links], count=len(links))


@router.post("/projects/{project_id}/links", response_model=LinkPublic,
             status_code=status.HTTP_201_CREATED, operation_id="create_project_link",
             responses=_WRITE_PROBLEMS)
async def create_link(project_id: UUID, body: LinkCreate, principal: PrincipalDep,
                      container: ContainerDep) -> LinkPublic:
    """`src -rel-> dst` between two entities of the project (or the project itself), if the
    ontology allows that relation between their kinds."""
    for entity_id in (body.src_id, body.dst_id):
        if entity_id != project_id:
            await _member(container, principal, project_id, entity_id)
        else:
            await _project(container, principal, project_id)
    edge = await container.projects.link(principal.tenant_id, body.src_id, body.rel,
                                         body.dst_id)
    return _link_public(edge)


@router.delete("/projects/{project_id}/links/{link_id}", status_code=status.HTTP_204_NO_CONTENT,
               operation_id="delete_project_link", responses=_DELETE_PROBLEMS)
async def delete_link(project_id: UUID, link_id: UUID, principal: PrincipalDep,
                      container: ContainerDep) -> None:
    """Owners, admins, the project's creator and the creator of either end only."""
    project = await _project(container, principal, project_id)
    edges = await container.projects.store.project_edges(principal.tenant_id, project_id)
    edge = next((e for e in edges if e.id == link_id), None)
    if edge is None:
        raise NotFound(f"no link {link_id} in project {project_id}")
    if not manages_project(principal, project):  # else the ends need not be read
        ends = [await container.projects.store.get(principal.tenant_id, end_id)
                for end_id in (edge.src_id, edge.dst_id)]
        may_unlink(principal, project, ends)
    await container.projects.unlink(principal.tenant_id, link_id)


# -- from finding to work ----------------------------------------------------------------------
@router.post("/projects/{project_id}/work-from-finding", response_model=EntityPublic,
             status_code=status.HTTP_201_CREATED, operation_id="work_from_finding",
             responses={**_WRITE_PROBLEMS, 404: {"description": "No such project, or a cited "
                                                 "document is not in this organisation"}})
async def work_from_finding(project_id: UUID, body: WorkFromFinding, principal: PrincipalDep,
                            container: ContainerDep) -> EntityPublic:
    """An audit finding (with the citations of its response) becomes a task, risk or
    requirement of the project, linked to the project's entry for the regulation it cites."""
    tenant_id = principal.tenant_id
    await _project(container, principal, project_id)
    cited = {c.n: c for c in body.citations}
    # The cited regulation becomes a document entry of the project: it must be this
    # organisation's. (The audited policy's id is only recorded; a pasted text has none.)
    documents = []
    for n in body.finding.citations:
        citation = cited.get(n)
        if citation is not None and citation.document_id is not None:
            documents.append(citation.document_id)
    for document_id in dict.fromkeys(documents):
        await container.documents.get(tenant_id, document_id)  # NotFound for anyone else's
    created = await container.projects.work_from_finding(
        tenant_id, project_id, body.finding, body.citations, body.kind,
        created_by=principal.user_id)
    return _entity_public(created)
