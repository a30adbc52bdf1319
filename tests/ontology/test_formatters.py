"""Light and full views per kind: exact fields, truncation, dates, the updated_at rule and the
props allowlist."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from regintel.adapters.postgres.ontology_tables import ENTITY_TABLES
from regintel.domain.ontology import Entity, EntityKind
from regintel.ontology.formatters import light
from regintel.ontology.service import OntologyService

K = EntityKind
LONG = "word " * 100  # 500 characters
CREATED = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
UPDATED = datetime(2026, 2, 7, 9, 0, tzinfo=UTC)
WHEN = datetime(2026, 3, 1, 10, 30, tzinfo=UTC)
PROPS = {"summary": LONG, "owner": "MLRO", "internal_note": "not for the prompt"}

LIGHT_FIELDS: dict[K, set[str]] = {
    K.PROJECT: {"id", "name", "state_key", "type_key", "description", "next_step_short",
                "start_at", "end_at", "facet_context", "facet_scale", "facet_stage",
                "updated_at", "created_at", "props"},
    K.TASK: {"id", "title", "state_key", "priority", "type_key", "start_at", "due_at",
             "updated_at", "created_at", "completed_at", "description", "plan_ids", "goal_ids",
             "output_ids", "dependency_count", "dependent_count", "props"},
    K.GOAL: {"id", "name", "state_key", "type_key", "target_date", "completed_at", "created_at",
             "updated_at", "description", "progress_percent", "completed_tasks", "total_tasks",
             "direct_edge", "props"},
    K.PLAN: {"id", "name", "state_key", "type_key", "created_at", "updated_at", "description",
             "task_count", "completed_task_count", "props"},
    K.MILESTONE: {"id", "title", "state_key", "type_key", "due_at", "completed_at",
                  "created_at", "updated_at", "description", "props"},
    K.RISK: {"id", "title", "state_key", "type_key", "impact", "probability", "created_at",
             "updated_at", "mitigated_at", "content", "props"},
    K.DECISION: {"id", "title", "state_key", "decision_at", "created_at", "updated_at",
                 "outcome", "rationale", "description", "props"},
    K.REQUIREMENT: {"id", "text", "priority", "created_at", "updated_at", "type_key", "props"},
    K.DOCUMENT: {"id", "title", "state_key", "type_key", "created_at", "updated_at",
                 "description", "content", "direct_edge", "props"},
    K.OUTPUT: {"id", "name", "state_key", "type_key", "created_at", "updated_at",
               "description", "linked_goal_ids", "linked_task_ids", "direct_edge", "props"},
    K.SIGNAL: {"id", "channel", "ts", "created_at", "payload_summary", "props"},
    K.INSIGHT: {"id", "title", "created_at", "derived_from_signal_id", "props"},
}
TRUNCATED: dict[K, dict[str, int]] = {
    K.PROJECT: {"description": 150}, K.TASK: {"description": 120},
    K.GOAL: {"description": 120}, K.PLAN: {"description": 120},
    K.MILESTONE: {"description": 120}, K.RISK: {"content": 120},
    K.DECISION: {"outcome": 120, "rationale": 180, "description": 120},
    K.DOCUMENT: {"description": 180, "content": 200}, K.OUTPUT: {"description": 160},
    K.SIGNAL: {"payload_summary": 160},
}


def _fields(kind: K, signal_id: UUID | None) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for column in ENTITY_TABLES[kind].c:
        name = column.name
        if name in {"id", "tenant_id", "project_id", "created_by", "deleted_at",
                    "context_document_id", "document_id"}:
            continue
        python_type = column.type.python_type
        if name == "derived_from_signal_id":
            fields[name] = signal_id
        elif python_type is str:
            fields[name] = {"impact": "high", "state_key": "active"}.get(name, LONG)
        elif python_type is datetime:
            fields[name] = {"created_at": CREATED, "updated_at": UPDATED}.get(name, WHEN)
        elif python_type is int:
            fields[name] = 2
        elif name == "probability":
            fields[name] = 0.25
        elif name == "payload":
            fields[name] = {"summary": LONG}
        elif name == "props":
            fields[name] = PROPS
    return fields


async def _all_kinds(service: OntologyService, tenant_id: UUID) -> dict[K, Entity]:
    store = service.store
    project = await store.create(tenant_id, K.PROJECT, None, _fields(K.PROJECT, None))
    made = {K.PROJECT: project}
    signal = await store.create(tenant_id, K.SIGNAL, project.id, _fields(K.SIGNAL, None))
    made[K.SIGNAL] = signal
    for kind in K:
        if kind not in made:
            made[kind] = await store.create(tenant_id, kind, project.id,
                                            _fields(kind, signal.id))
    return made


async def test_light_and_full_fields_per_kind(service: OntologyService,
                                              tenant_id: UUID) -> None:
    made = await _all_kinds(service, tenant_id)
    ctx = await service.loader.load(tenant_id, made[K.PROJECT].id)
    for kind, entity in made.items():
        view = light(ctx.index[entity.id], ctx)
        assert set(view) == LIGHT_FIELDS[kind], kind
        assert view["id"] == str(entity.id)
        for key, value in view.items():  # every date is a day
            if key.endswith(("_at", "_date")) or key == "ts":
                assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", value), (kind, key, value)
        assert view["created_at"] == "2026-01-05"
        if "updated_at" in LIGHT_FIELDS[kind]:
            assert view["updated_at"] == "2026-02-07"
        for key, limit in TRUNCATED.get(kind, {}).items():
            assert len(view[key]) == limit and view[key].endswith("…"), (kind, key)
        if kind is K.INSIGHT:
            assert view["props"] == {"summary": LONG.strip()[:159] + "…"}
        elif kind is not K.SIGNAL:
            assert set(view["props"]) == {"summary", "owner"}  # the allowlist only
            assert len(view["props"]["summary"]) == 160

        # Full views are for the detail tools, which read the whole row.
        detail = await service.tools(tenant_id, ctx).get_details(kind, entity.id)
        columns = {c.name for c in ENTITY_TABLES[kind].c} - {"tenant_id"}
        assert columns <= set(detail) and "tenant_id" not in detail, kind
        assert detail["kind"] == kind.value and isinstance(detail["relationships"], list)
        assert detail["created_at"] == CREATED.isoformat()  # exact, not a day
        if kind is not K.SIGNAL:
            assert detail["props"] == PROPS  # full props, unfiltered
        for key in TRUNCATED.get(kind, {}):
            if key in columns:
                assert detail[key] == LONG.strip() or detail[key] == LONG


async def test_updated_at_only_when_it_differs_and_empty_values_are_left_out(
        service: OntologyService, tenant_id: UUID) -> None:
    project = await service.create_project(tenant_id, {"name": "P"})
    same_day = await service.store.create(tenant_id, K.RISK, project.id, {
        "title": "r", "created_at": CREATED, "updated_at": CREATED.replace(hour=17)})
    view = light(same_day)
    assert view["created_at"] == "2026-01-05" and "updated_at" not in view
    assert set(view) == {"id", "title", "state_key", "created_at"}  # no nulls, no empty props
