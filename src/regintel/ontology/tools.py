"""Detail tools for progressive disclosure: the prompt carries the light snapshot, these return
full rows, relationships and the whole project graph on demand. ``TOOL_SCHEMAS`` describes them
as JSON-schema function tools for an LLM engine; ``ProjectTools.call`` dispatches by name."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from regintel.domain.ontology import MEMBER_KINDS, EntityKind
from regintel.errors import InvalidRequest, NotFound
from regintel.ontology.formatters import full, light, relationships
from regintel.ontology.loader import OntologyContextLoader, ProjectContext
from regintel.ontology.store import OntologyStore

_ID_PARAMS = {"type": "object", "additionalProperties": False, "required": ["id"],
              "properties": {"id": {"type": "string", "format": "uuid",
                                    "description": "The entity id, as cited in the context."}}}

def _tool(name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    # The same function-calling shape as regintel.chat.tools.TOOL_SCHEMAS.
    return {"type": "function",
            "function": {"name": name, "description": description, "parameters": parameters}}


TOOL_SCHEMAS: list[dict[str, Any]] = [
    *(_tool(f"get_{k.value}_details",
            f"Full row of one {k.value} of the project (all columns, full props, "
            "relationships).", _ID_PARAMS) for k in (EntityKind.PROJECT, *MEMBER_KINDS)),
    _tool("get_entity_relationships",
          "Every edge of an entity (relation, direction, the other end's kind and name).",
          _ID_PARAMS),
    _tool("get_project_graph_full",
          "The whole project graph: every live entity (light view) and every edge, uncapped. "
          "Large; use only when the snapshot is not enough.",
          {"type": "object", "additionalProperties": False, "required": ["project_id"],
           "properties": {"project_id": {"type": "string", "format": "uuid"}}}),
]
TOOL_NAMES = frozenset(s["function"]["name"] for s in TOOL_SCHEMAS)


class ProjectTools:
    """The detail tools for one tenant. A loaded ``ProjectContext`` is reused for look-ups in
    its project (no extra query); anything else is read from the store."""

    def __init__(self, store: OntologyStore, tenant_id: UUID,
                 context: ProjectContext | None = None) -> None:
        self._store = store
        self._loader = OntologyContextLoader(store)
        self.tenant_id = tenant_id
        self.context = context

    async def _context_for(self, entity_id: UUID) -> ProjectContext:
        if self.context is not None and entity_id in self.context.index:
            return self.context
        entity = await self._store.get(self.tenant_id, entity_id)
        if entity is None:
            raise NotFound(f"no entity {entity_id}")
        return await self._loader.load(self.tenant_id, entity.project_id)

    async def get_details(self, kind: EntityKind | None, entity_id: UUID) -> dict[str, Any]:
        # The full row comes from the store: the loaded context holds light columns only.
        entity = await self._store.get(self.tenant_id, entity_id, kind)
        if entity is None:
            raise NotFound(f"no {kind.value if kind else 'entity'} {entity_id}")
        return full(entity, await self._context_for(entity_id))

    async def get_project_details(self, entity_id: UUID) -> dict[str, Any]:
        return await self.get_details(EntityKind.PROJECT, entity_id)

    async def get_task_details(self, entity_id: UUID) -> dict[str, Any]:
        return await self.get_details(EntityKind.TASK, entity_id)

    async def get_goal_details(self, entity_id: UUID) -> dict[str, Any]:
        return await self.get_details(EntityKind.GOAL, entity_id)

    async def get_plan_details(self, entity_id: UUID) -> dict[str, Any]:
        return await self.get_details(EntityKind.PLAN, entity_id)

    async def get_milestone_details(self, entity_id: UUID) -> dict[str, Any]:
        return await self.get_details(EntityKind.MILESTONE, entity_id)

    async def get_risk_details(self, entity_id: UUID) -> dict[str, Any]:
        return await self.get_details(EntityKind.RISK, entity_id)

    async def get_decision_details(self, entity_id: UUID) -> dict[str, Any]:
        return await self.get_details(EntityKind.DECISION, entity_id)

    async def get_requirement_details(self, entity_id: UUID) -> dict[str, Any]:
        return await self.get_details(EntityKind.REQUIREMENT, entity_id)

    async def get_document_details(self, entity_id: UUID) -> dict[str, Any]:
        return await self.get_details(EntityKind.DOCUMENT, entity_id)

    async def get_output_details(self, entity_id: UUID) -> dict[str, Any]:
        return await self.get_details(EntityKind.OUTPUT, entity_id)

    async def get_signal_details(self, entity_id: UUID) -> dict[str, Any]:
        return await self.get_details(EntityKind.SIGNAL, entity_id)

    async def get_insight_details(self, entity_id: UUID) -> dict[str, Any]:
        return await self.get_details(EntityKind.INSIGHT, entity_id)

    async def get_entity_relationships(self, entity_id: UUID) -> list[dict[str, Any]]:
        return relationships(entity_id, await self._context_for(entity_id))

    async def get_project_graph_full(self, project_id: UUID) -> dict[str, Any]:
        if self.context is not None and self.context.project.id == project_id:
            ctx = self.context
        else:
            ctx = await self._loader.load(self.tenant_id, project_id)
        return {
            "root_id": str(ctx.project.id),
            "nodes": [{"kind": e.kind.value, "direct_edge": ctx.is_direct(e.id), **light(e, ctx)}
                      for e in ctx.index.values()],
            "edges": [{"id": str(e.id), "src_id": str(e.src_id), "src_kind": e.src_kind.value,
                       "dst_id": str(e.dst_id), "dst_kind": e.dst_kind.value, "rel": e.rel}
                      for e in ctx.edges],
            "coverage": {k: c.model_dump() for k, c in ctx.coverage.items()},
        }

    async def call(self, name: str, arguments: dict[str, Any]) -> Any:
        """Run a tool by its schema name with the model's JSON arguments."""
        if name not in TOOL_NAMES:
            raise InvalidRequest(f"unknown project tool {name!r}")
        key = "project_id" if name == "get_project_graph_full" else "id"
        try:
            target = UUID(str(arguments[key]))
        except (KeyError, ValueError) as exc:
            raise InvalidRequest(f"{name} needs a uuid '{key}'") from exc
        if name == "get_project_graph_full":
            return await self.get_project_graph_full(target)
        if name == "get_entity_relationships":
            return await self.get_entity_relationships(target)
        kind = EntityKind(name.removeprefix("get_").removesuffix("_details"))
        return await self.get_details(kind, target)
