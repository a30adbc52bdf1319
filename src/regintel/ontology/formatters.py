"""Light and full representations of every entity kind (spec "Entity Field Specifications").

Light (prompt context): exactly the spec's fields, texts truncated to the spec's lengths, dates
as YYYY-MM-DD, ``updated_at`` only when its date differs from ``created_at``'s, empty values
left out to save tokens (the ``id`` and flags always stay), and ``props`` reduced to an
allowlist. Full (detail tools): every column but ``tenant_id``, with exact ISO timestamps, full
``props`` and relationship lists.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any
from uuid import UUID

from regintel.domain.ontology import EntityKind
from regintel.ontology.graph import is_done, short_date

if TYPE_CHECKING:
    from regintel.domain.ontology import Entity
    from regintel.ontology.loader import ProjectContext

# props keys that may appear in light mode; anything else stays for the detail tools.
LIGHT_PROPS_ALLOWLIST = ("summary", "owner", "jurisdiction", "severity", "source_title",
                         "source_page", "source_clause")
LIGHT_PROP_CHARS = 160
_ALWAYS = ("id", "direct_edge")
_DATES = frozenset({"start_at", "end_at", "due_at", "completed_at", "target_date",
                    "mitigated_at", "decision_at", "ts", "created_at", "updated_at"})

Light = dict[str, Any]


def truncate(value: Any, limit: int) -> str | None:
    if value is None:
        return None
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def light_props(props: Any) -> dict[str, Any] | None:
    if not isinstance(props, dict):
        return None
    kept = {k: (truncate(props[k], LIGHT_PROP_CHARS) if isinstance(props[k], str) else props[k])
            for k in LIGHT_PROPS_ALLOWLIST if props.get(k) not in (None, "")}
    return kept or None


def _finish(entity: Entity, fields: dict[str, Any]) -> Light:
    out: Light = {"id": str(entity.id)}
    for key, value in fields.items():
        if key in _DATES:
            value = short_date(value)
        if value is None or (value == "" and key not in _ALWAYS):
            continue
        out[key] = value
    created = out.get("created_at")
    if "updated_at" in out and out["updated_at"] == created:
        del out["updated_at"]
    return out


def _ids(entities: list[Entity]) -> list[str]:
    return sorted(str(e.id) for e in entities)


def _number(value: Any) -> Any:
    return float(value) if isinstance(value, Decimal) else value


def _task_counts(tasks: list[Entity]) -> tuple[int, int]:
    return sum(1 for t in tasks if is_done(t)), len(tasks)


def _described(d: dict[str, Any], description_chars: int, *,
               name: str = "name") -> dict[str, Any]:
    """The head most light views share: name (or title), state, type, dates, description."""
    return {name: d.get(name), "state_key": d.get("state_key"), "type_key": d.get("type_key"),
            "created_at": d.get("created_at"), "updated_at": d.get("updated_at"),
            "description": truncate(d.get("description"), description_chars)}


def _light_project(e: Entity, ctx: ProjectContext | None) -> dict[str, Any]:
    d = e.data
    return {"name": d.get("name"), "state_key": d.get("state_key"),
            "type_key": d.get("type_key"), "description": truncate(d.get("description"), 150),
            "next_step_short": d.get("next_step_short"), "start_at": d.get("start_at"),
            "end_at": d.get("end_at"), "facet_context": d.get("facet_context"),
            "facet_scale": d.get("facet_scale"), "facet_stage": d.get("facet_stage"),
            "updated_at": d.get("updated_at"), "created_at": d.get("created_at")}


def _light_task(e: Entity, ctx: ProjectContext | None) -> dict[str, Any]:
    d = e.data
    fields = {"title": d.get("title"), "state_key": d.get("state_key"),
              "priority": d.get("priority"), "type_key": d.get("type_key"),
              "start_at": d.get("start_at"), "due_at": d.get("due_at"),
              "updated_at": d.get("updated_at"), "created_at": d.get("created_at"),
              "completed_at": d.get("completed_at"),
              "description": truncate(d.get("description"), 120)}
    if ctx is not None:
        fields |= {
            "plan_ids": _ids(ctx.neighbours(e.id, EntityKind.PLAN)),
            "goal_ids": _ids(ctx.neighbours(e.id, EntityKind.GOAL)),
            "output_ids": _ids(ctx.neighbours(e.id, EntityKind.OUTPUT)),
            "dependency_count": len(ctx.neighbours(e.id, EntityKind.TASK, rel="depends_on",
                                                   incoming=False)),
            "dependent_count": len(ctx.neighbours(e.id, EntityKind.TASK, rel="depends_on",
                                                  incoming=True))}
    return fields


def _light_goal(e: Entity, ctx: ProjectContext | None) -> dict[str, Any]:
    d = e.data
    fields = {"name": d.get("name"), "state_key": d.get("state_key"),
              "type_key": d.get("type_key"), "target_date": d.get("target_date"),
              "completed_at": d.get("completed_at"), "created_at": d.get("created_at"),
              "updated_at": d.get("updated_at"),
              "description": truncate(d.get("description"), 120)}
    if ctx is not None:
        done, total = _task_counts(ctx.neighbours(e.id, EntityKind.TASK))
        fields |= {"progress_percent": round(100 * done / total) if total else 0,
                   "completed_tasks": done, "total_tasks": total,
                   "direct_edge": ctx.is_direct(e.id)}
    return fields


def _light_plan(e: Entity, ctx: ProjectContext | None) -> dict[str, Any]:
    d = e.data
    fields = _described(d, 120)
    if ctx is not None:
        done, total = _task_counts(ctx.neighbours(e.id, EntityKind.TASK))
        fields |= {"task_count": total, "completed_task_count": done}
    return fields


def _light_milestone(e: Entity, ctx: ProjectContext | None) -> dict[str, Any]:
    d = e.data
    return {"title": d.get("title"), "state_key": d.get("state_key"),
            "type_key": d.get("type_key"), "due_at": d.get("due_at"),
            "completed_at": d.get("completed_at"), "created_at": d.get("created_at"),
            "updated_at": d.get("updated_at"),
            "description": truncate(d.get("description"), 120)}


def _light_risk(e: Entity, ctx: ProjectContext | None) -> dict[str, Any]:
    d = e.data
    return {"title": d.get("title"), "state_key": d.get("state_key"),
            "type_key": d.get("type_key"), "impact": d.get("impact"),
            "probability": _number(d.get("probability")), "created_at": d.get("created_at"),
            "updated_at": d.get("updated_at"), "mitigated_at": d.get("mitigated_at"),
            "content": truncate(d.get("content"), 120)}


def _light_decision(e: Entity, ctx: ProjectContext | None) -> dict[str, Any]:
    d = e.data
    return {"title": d.get("title"), "state_key": d.get("state_key"),
            "decision_at": d.get("decision_at"), "created_at": d.get("created_at"),
            "updated_at": d.get("updated_at"), "outcome": truncate(d.get("outcome"), 120),
            "rationale": truncate(d.get("rationale"), 180),
            "description": truncate(d.get("description"), 120)}


def _light_requirement(e: Entity, ctx: ProjectContext | None) -> dict[str, Any]:
    d = e.data
    return {"text": d.get("text"), "priority": d.get("priority"),
            "created_at": d.get("created_at"), "updated_at": d.get("updated_at"),
            "type_key": d.get("type_key")}


def _light_document(e: Entity, ctx: ProjectContext | None) -> dict[str, Any]:
    d = e.data
    fields = _described(d, 180, name="title") | {
        "content": truncate(d.get("content"), 200)}
    if ctx is not None:
        fields["direct_edge"] = ctx.is_direct(e.id)
    return fields


def _light_output(e: Entity, ctx: ProjectContext | None) -> dict[str, Any]:
    d = e.data
    fields = _described(d, 160)
    if ctx is not None:
        fields |= {"linked_goal_ids": _ids(ctx.neighbours(e.id, EntityKind.GOAL)),
                   "linked_task_ids": _ids(ctx.neighbours(e.id, EntityKind.TASK)),
                   "direct_edge": ctx.is_direct(e.id)}
    return fields


def _payload_summary(payload: Any) -> str | None:
    if isinstance(payload, dict) and isinstance(payload.get("summary"), str):
        return truncate(payload["summary"], 160)
    if not payload:
        return None
    return truncate(json.dumps(payload, ensure_ascii=False, default=str), 160)


def _light_signal(e: Entity, ctx: ProjectContext | None) -> dict[str, Any]:
    d = e.data
    return {"channel": d.get("channel"), "ts": d.get("ts"), "created_at": d.get("created_at"),
            "payload_summary": _payload_summary(d.get("payload"))}


def _light_insight(e: Entity, ctx: ProjectContext | None) -> dict[str, Any]:
    d = e.data
    props = d.get("props")
    summary = truncate(props.get("summary"), 160) if isinstance(props, dict) else None
    return {"title": d.get("title"), "created_at": d.get("created_at"),
            "derived_from_signal_id": _jsonable(d.get("derived_from_signal_id")),
            "props": {"summary": summary} if summary else None}


_LIGHT: dict[EntityKind, Callable[[Entity, ProjectContext | None], dict[str, Any]]] = {
    EntityKind.PROJECT: _light_project, EntityKind.TASK: _light_task,
    EntityKind.GOAL: _light_goal, EntityKind.PLAN: _light_plan,
    EntityKind.MILESTONE: _light_milestone, EntityKind.RISK: _light_risk,
    EntityKind.DECISION: _light_decision, EntityKind.REQUIREMENT: _light_requirement,
    EntityKind.DOCUMENT: _light_document, EntityKind.OUTPUT: _light_output,
    EntityKind.SIGNAL: _light_signal, EntityKind.INSIGHT: _light_insight,
}


def light(entity: Entity, ctx: ProjectContext | None = None) -> Light:
    """The light view; derived fields (task links, goal progress, direct_edge) need ``ctx``."""
    fields = _LIGHT[entity.kind](entity, ctx)
    if entity.kind is not EntityKind.INSIGHT:  # an insight surfaces props.summary only
        fields["props"] = light_props(entity.data.get("props"))
    return _finish(entity, fields)


def _jsonable(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, Decimal):
        return float(value)
    return value


def full(entity: Entity, ctx: ProjectContext | None = None) -> dict[str, Any]:
    """Every column but ``tenant_id``, the kind, derived light fields and, with ``ctx``, every
    relationship of the entity."""
    out: dict[str, Any] = {"kind": entity.kind.value}
    out |= {k: _jsonable(v) for k, v in entity.data.items() if k != "tenant_id"}
    derived = _LIGHT[entity.kind](entity, ctx)
    for key, value in derived.items():
        if key not in out:
            out[key] = _jsonable(value)
    if ctx is not None:
        out["relationships"] = relationships(entity.id, ctx)
    return out


def relationships(entity_id: UUID, ctx: ProjectContext) -> list[dict[str, Any]]:
    """Each live edge of the entity, seen from it: direction, relation and the other end."""
    rows: list[dict[str, Any]] = []
    for edge in ctx.adjacency.get(entity_id, ()):
        outgoing = edge.src_id == entity_id
        other = ctx.index[edge.dst_id if outgoing else edge.src_id]
        rows.append({"edge_id": str(edge.id), "rel": edge.rel,
                     "direction": "out" if outgoing else "in", "other_id": str(other.id),
                     "other_kind": other.kind.value, "other_name": truncate(other.label, 80)})
    return rows
