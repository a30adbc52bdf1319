"""Compliance projects: the projects, their entities and links, the snapshot and coverage, the
context preview and work created from audit findings."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any, Literal, get_args
from uuid import UUID

from pydantic import AfterValidator, BaseModel, Field, StringConstraints

from regintel.api.schemas.common import RequestBody, not_blank
from regintel.domain.chat import AuditFinding, Citation
from regintel.domain.ontology import (
    COMMON_FIELDS,
    KIND_FIELDS,
    MEMBER_KINDS,
    Coverage,
    Edge,
    EntityKind,
    GraphSnapshot,
    PayloadKind,
)


def _plausible(value: date | None) -> date | None:
    # Far-off years only arise from typos or fuzzers, and would not survive time-zone maths.
    if value is not None and not 1900 <= value.year <= 2200:
        raise ValueError("dates must fall between 1900 and 2200")
    return value


# The bound is in the schema too, so a client (or a fuzzer) knows it before asking.
Day = Annotated[date, AfterValidator(_plausible),
                Field(json_schema_extra={"pattern": r"^(19\d\d|2[01]\d\d|2200)-"})]
Name = Annotated[str, StringConstraints(strip_whitespace=True,
                                        min_length=1, max_length=200), not_blank(1)]
Text = Annotated[str, StringConstraints(max_length=10_000)]
Short = Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]
StateKey = Name  # a project's state is never blank (the service refuses "", and so does the schema)

# The member kinds as a path parameter (``project`` is not one: projects have their own routes).
MemberKind = Literal["task", "goal", "plan", "milestone", "risk", "decision", "requirement",
                     "document", "output", "signal", "insight"]
assert set(get_args(MemberKind)) == {k.value for k in MEMBER_KINDS}


def _fields_doc() -> str:
    lines = [f"- `{k.value}`: " + ", ".join(f"`{f}`" for f in (*KIND_FIELDS[k], *COMMON_FIELDS))
             for k in MEMBER_KINDS]
    return "The entity's columns by name (unknown names are refused):\n" + "\n".join(lines)


class ProjectCreate(RequestBody):
    name: Name
    description: Text | None = None
    state_key: StateKey = "active"
    type_key: Short | None = None
    facet_context: Short | None = None
    facet_scale: Short | None = None
    facet_stage: Short | None = None
    start_at: Day | None = None
    end_at: Day | None = None
    next_step_short: Short | None = None
    next_step_long: Text | None = None


class ProjectUpdate(RequestBody):
    """Only the fields sent are changed."""

    name: Name | None = None
    description: Text | None = None
    state_key: StateKey | None = None
    type_key: Short | None = None
    facet_context: Short | None = None
    facet_scale: Short | None = None
    facet_stage: Short | None = None
    start_at: Day | None = None
    end_at: Day | None = None
    next_step_short: Short | None = None
    next_step_long: Text | None = None


class ProjectPublic(BaseModel):
    id: UUID
    name: str
    description: str | None = None
    state_key: str
    type_key: str | None = None
    facet_context: str | None = None
    facet_scale: str | None = None
    facet_stage: str | None = None
    start_at: datetime | None = None
    end_at: datetime | None = None
    next_step_short: str | None = None
    next_step_long: str | None = None
    created_at: datetime
    updated_at: datetime


class ProjectsPublic(BaseModel):
    data: list[ProjectPublic]
    count: int


class EntityCreate(RequestBody):
    fields: Annotated[dict[str, Any], Field(max_length=30, description=_fields_doc())]
    link_to_project: bool = Field(True, description="Also add the project's direct "
                                  "`has_<kind>` edge (only directly linked risks, tasks… reach "
                                  "the chat's snapshot).")


class EntityUpdate(RequestBody):
    fields: Annotated[dict[str, Any], Field(min_length=1, max_length=30,
                                            description="Only these columns change.")]


class EntityPublic(BaseModel):
    id: UUID
    kind: EntityKind
    project_id: UUID
    label: str = Field(description="The entity's name, title or text.")
    data: dict[str, Any] = Field(description="The full view: every column, ISO timestamps.")


class EntitiesPublic(BaseModel):
    data: list[EntityPublic]
    count: int


class LinkCreate(RequestBody):
    src_id: UUID
    rel: Annotated[str, StringConstraints(strip_whitespace=True,
                                          min_length=1, max_length=64), not_blank(1)]
    dst_id: UUID


class LinkPublic(Edge):
    """A link between two entities of a project, as the domain's ``Edge``."""


class LinksPublic(BaseModel):
    data: list[LinkPublic]
    count: int


class RelationRule(BaseModel):
    src_kind: EntityKind
    rel: str
    dst_kind: EntityKind


class RelationRulesPublic(BaseModel):
    data: list[RelationRule]
    count: int


class SnapshotPublic(BaseModel):
    """The project page: the bounded graph snapshot (depth 2 from the project, capped) with
    coverage per kind, and the entity counts by kind."""

    project: ProjectPublic
    snapshot: GraphSnapshot
    coverage: dict[str, Coverage]
    counts: dict[str, int]


class ContextPreview(BaseModel):
    """What the chat's prompt gets for this project (or a focused entity of it)."""

    kind: PayloadKind
    tokens: int = Field(description="Estimate: characters / 4.")
    characters: int
    data: dict[str, Any] = Field(description="The payload the model reads, as JSON.")


class WorkFromFinding(RequestBody):
    finding: AuditFinding
    citations: Annotated[list[Citation], Field(max_length=100)] = Field(
        description="The citations of the audit response the finding came from.")
    kind: Literal["task", "risk", "requirement"] = "task"
