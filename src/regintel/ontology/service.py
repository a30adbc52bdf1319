"""Create, update, soft-delete and link ontology entities, validated before the database sees
them (the database refuses the same mistakes again: relation rules, edge guard, RLS)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any
from uuid import UUID

from regintel.domain.chat import AuditFinding, Citation
from regintel.domain.ontology import (
    ALLOWED_RELATIONS,
    COMMON_FIELDS,
    IMPACTS,
    KIND_FIELDS,
    LABEL_FIELD,
    Edge,
    Entity,
    EntityKind,
    FieldType,
    allowed_relations,
)
from regintel.errors import InvalidRequest, NotFound
from regintel.ontology.findings import WorkKind, work_from_finding
from regintel.ontology.loader import OntologyContextLoader, ProjectContext
from regintel.ontology.store import OntologyStore
from regintel.ontology.tools import ProjectTools


def parse_datetime(value: Any) -> datetime:
    """ISO dates and datetimes; a bare date means midnight UTC (due dates are days)."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    try:
        parsed = datetime.fromisoformat(str(value).strip())
    except ValueError as exc:
        raise InvalidRequest(f"not a date: {value!r}", hint="use YYYY-MM-DD") from exc
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _coerce(kind: EntityKind, field: str, ftype: FieldType, value: Any) -> Any:
    if value is None:
        return None
    try:
        match ftype:
            case "text":
                return str(value).strip()
            case "int":
                number = int(value)
                if field == "priority" and not 1 <= number <= 5:
                    raise InvalidRequest("priority must be 1 (highest) to 5")
                return number
            case "numeric":
                decimal = Decimal(str(value))
                if field == "probability" and not 0 <= decimal <= 1:
                    raise InvalidRequest("probability must be between 0 and 1")
                return decimal
            case "datetime":
                return parse_datetime(value)
            case "uuid":
                return value if isinstance(value, UUID) else UUID(str(value))
            case "json":
                loaded = json.loads(value) if isinstance(value, str) else value
                if not isinstance(loaded, dict):
                    raise InvalidRequest(f"{field} must be a JSON object")
                return loaded
    except (ValueError, InvalidOperation, TypeError) as exc:
        raise InvalidRequest(f"invalid {kind.value} {field}: {value!r}") from exc
    raise AssertionError(ftype)


def validate_fields(kind: EntityKind, fields: Mapping[str, Any], *,
                    creating: bool) -> dict[str, Any]:
    """Known columns only, coerced to their types; a new entity needs its label."""
    allowed = {**COMMON_FIELDS, **KIND_FIELDS[kind]}
    unknown = sorted(set(fields) - set(allowed))
    if unknown:
        raise InvalidRequest(f"unknown {kind.value} field(s): {', '.join(unknown)}",
                             hint=f"allowed: {', '.join(sorted(allowed))}")
    values = {f: _coerce(kind, f, allowed[f], v) for f, v in fields.items()}
    label = LABEL_FIELD[kind]
    if (creating or label in values) and not values.get(label):
        raise InvalidRequest(f"a {kind.value} needs a {label}")
    if "state_key" in values and not values["state_key"]:
        raise InvalidRequest("state_key cannot be empty")
    if values.get("impact") is not None and values["impact"] not in IMPACTS:
        raise InvalidRequest(f"impact must be one of {', '.join(IMPACTS)}")
    return values


class OntologyService:
    def __init__(self, store: OntologyStore) -> None:
        self.store = store
        self.loader = OntologyContextLoader(store)

    def tools(self, tenant_id: UUID, context: ProjectContext | None = None) -> ProjectTools:
        """The detail tools for one tenant, reusing ``context`` when given."""
        return ProjectTools(self.store, tenant_id, context)

    async def work_from_finding(self, tenant_id: UUID, project_id: UUID, finding: AuditFinding,
                                citations: Sequence[Citation], kind: str = "task", *,
                                created_by: UUID | None = None) -> Entity:
        """See ``findings.work_from_finding``: a requirement, risk or task from an audit
        finding, linked to the regulation document entry it cites."""
        try:
            work_kind = WorkKind(kind)
        except ValueError as exc:
            raise InvalidRequest("a finding becomes a requirement, risk or task") from exc
        return await work_from_finding(self, tenant_id, project_id, finding, citations,
                                       work_kind, created_by=created_by)

    async def create_project(self, tenant_id: UUID, fields: Mapping[str, Any], *,
                             created_by: UUID | None = None) -> Entity:
        values = validate_fields(EntityKind.PROJECT, fields, creating=True)
        return await self.store.create(tenant_id, EntityKind.PROJECT, None,
                                       {**values, "created_by": created_by})

    async def project(self, tenant_id: UUID, project_id: UUID) -> Entity:
        found = await self.store.get(tenant_id, project_id, EntityKind.PROJECT)
        if found is None:
            raise NotFound(f"no project {project_id}")
        return found

    async def entity(self, tenant_id: UUID, entity_id: UUID,
                     kind: EntityKind | None = None) -> Entity:
        found = await self.store.get(tenant_id, entity_id, kind)
        if found is None:
            raise NotFound(f"no {kind.value if kind else 'entity'} {entity_id}")
        return found

    async def create_entity(self, tenant_id: UUID, project_id: UUID, kind: EntityKind,
                            fields: Mapping[str, Any], *, link_to_project: bool = True,
                            created_by: UUID | None = None) -> Entity:
        """A new entity in the project; by default also its direct ``has_<kind>`` edge, since
        only directly linked risks, tasks… reach the chat's snapshot (spec selection rules)."""
        if kind is EntityKind.PROJECT:
            raise InvalidRequest("use create_project for projects")
        project = await self.project(tenant_id, project_id)
        values = validate_fields(kind, fields, creating=True)
        if kind is EntityKind.INSIGHT and values.get("derived_from_signal_id"):
            await self._same_project(tenant_id, project_id, values["derived_from_signal_id"])
        entity = await self.store.create(tenant_id, kind, project_id,
                                         {**values, "created_by": created_by})
        if link_to_project:
            await self.store.add_edges(tenant_id, project_id,
                                       [(project, f"has_{kind.value}", entity)])
        return entity

    async def update_entity(self, tenant_id: UUID, entity_id: UUID,
                            fields: Mapping[str, Any]) -> Entity:
        current = await self.entity(tenant_id, entity_id)
        values = validate_fields(current.kind, fields, creating=False)
        if not values:
            raise InvalidRequest("nothing to update")
        if values.get("derived_from_signal_id"):
            await self._same_project(tenant_id, current.project_id,
                                     values["derived_from_signal_id"])
        return await self.store.update(tenant_id, current.kind, entity_id, values)

    async def delete_entity(self, tenant_id: UUID, entity_id: UUID) -> Entity:
        """Soft delete: the row stays (``deleted_at``); its edges drop out of every snapshot
        because the loader keeps only edges whose two ends are live."""
        current = await self.entity(tenant_id, entity_id)
        await self.store.soft_delete(tenant_id, current.kind, entity_id)
        return current

    async def link(self, tenant_id: UUID, src_id: UUID, rel: str, dst_id: UUID) -> Edge:
        src = await self.entity(tenant_id, src_id)
        dst = await self.entity(tenant_id, dst_id)
        if src.project_id != dst.project_id:
            raise InvalidRequest(f"{src.kind.value} {src.id} and {dst.kind.value} {dst.id} "
                                 "belong to different projects")
        if (src.kind, rel, dst.kind) not in ALLOWED_RELATIONS:
            options = allowed_relations(src.kind, dst.kind)
            raise InvalidRequest(
                f"{src.kind.value} -{rel}-> {dst.kind.value} is not an allowed relation",
                hint=f"allowed: {', '.join(options)}" if options
                else f"no relation goes from a {src.kind.value} to a {dst.kind.value}")
        if await self.store.edge_exists(tenant_id, src.id, rel, dst.id):
            raise InvalidRequest(f"{src.id} -{rel}-> {dst.id} already exists")
        return (await self.store.add_edges(tenant_id, src.project_id, [(src, rel, dst)]))[0]

    async def unlink(self, tenant_id: UUID, edge_id: UUID) -> None:
        await self.store.remove_edge(tenant_id, edge_id)

    async def _same_project(self, tenant_id: UUID, project_id: UUID, entity_id: UUID) -> None:
        other = await self.entity(tenant_id, entity_id)
        if other.project_id != project_id:
            raise InvalidRequest(f"{other.kind.value} {entity_id} belongs to another project")
