"""Compliance project ontology: entity kinds, their fields, allowed relations, and the snapshot
and context models the chat is grounded in (spec: project_context_enrichment.md)."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, Literal, NamedTuple
from uuid import UUID

from pydantic import BaseModel, Field


class EntityKind(StrEnum):
    PROJECT = "project"
    TASK = "task"
    GOAL = "goal"
    PLAN = "plan"
    MILESTONE = "milestone"
    RISK = "risk"
    DECISION = "decision"
    REQUIREMENT = "requirement"
    DOCUMENT = "document"
    OUTPUT = "output"
    SIGNAL = "signal"
    INSIGHT = "insight"

    @property
    def plural(self) -> str:
        return f"{self.value}s"

    @property
    def table(self) -> str:
        return f"onto_{self.plural}"


MEMBER_KINDS: tuple[EntityKind, ...] = tuple(k for k in EntityKind if k is not EntityKind.PROJECT)
# Spec "Entity Selection Rules": these are listed by project_id even without a direct edge.
ALWAYS_INCLUDED: frozenset[EntityKind] = frozenset(
    {EntityKind.GOAL, EntityKind.DOCUMENT, EntityKind.OUTPUT})

FieldType = Literal["text", "int", "numeric", "datetime", "uuid", "json"]
COMMON_FIELDS: dict[str, FieldType] = {"state_key": "text", "type_key": "text", "props": "json"}
# Editable columns per kind (besides id, tenant, project, timestamps) and their types.
KIND_FIELDS: dict[EntityKind, dict[str, FieldType]] = {
    EntityKind.PROJECT: {"name": "text", "description": "text", "facet_context": "text",
                         "facet_scale": "text", "facet_stage": "text", "start_at": "datetime",
                         "end_at": "datetime", "next_step_short": "text",
                         "next_step_long": "text", "next_step_source": "text",
                         "next_step_updated_at": "datetime", "context_document_id": "uuid"},
    EntityKind.TASK: {"title": "text", "description": "text", "priority": "int",
                      "start_at": "datetime", "due_at": "datetime", "completed_at": "datetime",
                      "facet_scale": "text"},
    EntityKind.GOAL: {"name": "text", "goal": "text", "description": "text",
                      "target_date": "datetime", "completed_at": "datetime"},
    EntityKind.PLAN: {"name": "text", "plan": "text", "description": "text"},
    EntityKind.MILESTONE: {"title": "text", "milestone": "text", "description": "text",
                           "due_at": "datetime", "completed_at": "datetime"},
    EntityKind.RISK: {"title": "text", "content": "text", "impact": "text",
                      "probability": "numeric", "mitigated_at": "datetime"},
    EntityKind.DECISION: {"title": "text", "description": "text", "outcome": "text",
                          "rationale": "text", "decision_at": "datetime"},
    EntityKind.REQUIREMENT: {"text": "text", "priority": "int"},
    EntityKind.DOCUMENT: {"title": "text", "description": "text", "content": "text",
                          "document_id": "uuid"},
    EntityKind.OUTPUT: {"name": "text", "description": "text"},
    EntityKind.SIGNAL: {"channel": "text", "ts": "datetime", "payload": "json"},
    EntityKind.INSIGHT: {"title": "text", "derived_from_signal_id": "uuid"},
}
# The column that names an entity in lists and answers.
LABEL_FIELD: dict[EntityKind, str] = {
    EntityKind.PROJECT: "name", EntityKind.TASK: "title", EntityKind.GOAL: "name",
    EntityKind.PLAN: "name", EntityKind.MILESTONE: "title", EntityKind.RISK: "title",
    EntityKind.DECISION: "title", EntityKind.REQUIREMENT: "text", EntityKind.DOCUMENT: "title",
    EntityKind.OUTPUT: "name", EntityKind.SIGNAL: "channel", EntityKind.INSIGHT: "title",
}
IMPACTS = ("low", "medium", "high", "critical")
DONE_STATES = frozenset({"done", "completed", "complete", "closed", "met", "satisfied",
                         "mitigated", "archived", "cancelled", "resolved", "published"})


def _k(name: str) -> EntityKind:
    return EntityKind(name)


# (src_kind, rel, dst_kind). Migration 0006 holds a frozen copy in onto_relation_rules;
# tests/ontology checks the two agree.
RELATION_RULES: tuple[tuple[EntityKind, str, EntityKind], ...] = tuple(
    (_k(s), r, _k(d)) for s, r, d in (
        *(("project", f"has_{k.value}", k.value) for k in MEMBER_KINDS),
        ("task", "depends_on", "task"),
        ("task", "supports_goal", "goal"), ("plan", "supports_goal", "goal"),
        ("milestone", "supports_goal", "goal"), ("output", "supports_goal", "goal"),
        ("requirement", "supports_goal", "goal"),
        ("plan", "has_task", "task"), ("goal", "has_milestone", "milestone"),
        ("task", "targets_milestone", "milestone"), ("task", "produces", "output"),
        ("task", "mitigates", "risk"), ("decision", "mitigates", "risk"),
        ("plan", "mitigates", "risk"), ("requirement", "mitigates", "risk"),
        ("task", "addresses", "requirement"), ("decision", "addresses", "requirement"),
        ("output", "addresses", "requirement"), ("plan", "addresses", "requirement"),
        ("risk", "threatens", "goal"), ("risk", "threatens", "milestone"),
        ("risk", "affects", "requirement"),
        ("decision", "informs", "task"), ("decision", "informs", "plan"),
        ("decision", "informs", "requirement"),
        ("requirement", "references", "document"), ("risk", "references", "document"),
        ("task", "references", "document"), ("decision", "references", "document"),
        ("output", "references", "document"),
        ("signal", "raises", "risk"), ("insight", "derived_from", "signal"),
        ("insight", "informs", "risk"), ("insight", "informs", "requirement"),
        ("insight", "informs", "decision"),
    ))
ALLOWED_RELATIONS: frozenset[tuple[EntityKind, str, EntityKind]] = frozenset(RELATION_RULES)


def allowed_relations(src: EntityKind, dst: EntityKind) -> list[str]:
    return sorted(r for s, r, d in RELATION_RULES if s is src and d is dst)


class Entity(BaseModel):
    """One ontology row: the typed identity plus its columns as stored (``data``)."""

    id: UUID
    kind: EntityKind
    project_id: UUID
    data: dict[str, Any]

    @property
    def label(self) -> str:
        return str(self.data.get(LABEL_FIELD[self.kind]) or "")

    @property
    def state(self) -> str:
        return str(self.data.get("state_key") or "")


class Edge(BaseModel):
    id: UUID
    project_id: UUID
    src_id: UUID
    src_kind: EntityKind
    rel: str
    dst_id: UUID
    dst_kind: EntityKind
    created_at: datetime | None = None


class EdgeRef(NamedTuple):
    """An edge as the context loader holds it: a plain tuple, because a 5,000-edge project is
    read on every chat turn and building as many pydantic models would cost more than the
    query (see ``regintel bench ontology``)."""

    id: UUID
    src_id: UUID
    src_kind: EntityKind
    rel: str
    dst_id: UUID
    dst_kind: EntityKind


class ProjectRows(BaseModel):
    """What the loader reads for one project, before it builds the graph."""

    project: Entity | None
    members: dict[EntityKind, list[Entity]]
    edges: list[EdgeRef]


class NewEdge(BaseModel):
    src_id: UUID
    rel: str
    dst_id: UUID


class Coverage(BaseModel):
    total: int = 0
    direct: int = 0
    unlinked: int = 0


class GraphNode(BaseModel):
    id: UUID
    kind: EntityKind
    name: str
    state_key: str | None = None
    type_key: str | None = None
    direct_edge: bool
    depth: int
    last_updated: str | None = None


class GraphEdge(BaseModel):
    id: UUID
    src_id: UUID
    src_kind: EntityKind
    dst_id: UUID
    dst_kind: EntityKind
    rel: str


class GraphOverflow(BaseModel):
    """What the caps left out: reachable nodes (depth ≤ 2) and edges between kept nodes."""

    nodes: int = 0
    edges: int = 0
    by_kind: dict[str, int] = Field(default_factory=dict)


class GraphSnapshot(BaseModel):
    root_id: UUID
    root_kind: Literal["project"] = "project"
    max_depth: int = 2
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    coverage: dict[str, Coverage]
    overflow: GraphOverflow
    caps: dict[str, int]


class PayloadKind(StrEnum):
    GLOBAL = "global"
    PROJECT = "project"
    FOCUS = "project_focus"


class ContextPayload(BaseModel):
    """One JSON block for the prompt; ``tokens`` estimates its size as characters / 4."""

    kind: PayloadKind
    data: dict[str, Any]
    text: str
    tokens: int


class ProjectAnswer(BaseModel):
    """An offline answer about a project; ``text`` cites entities as ``[kind:uuid]``."""

    intent: str
    text: str
    entity_ids: list[UUID] = Field(default_factory=list)
    citations: list[str] = Field(default_factory=list, description="The [kind:uuid] tokens.")
