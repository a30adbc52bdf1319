"""Context payloads by chat context type (global, project workspace, focused entity), each one
compact JSON block the model can parse, with a token estimate of characters / 4 (a rough rule
for English and JSON with common tokenizers; good enough to budget a prompt)."""

from __future__ import annotations

import json
import math
from typing import Any
from uuid import UUID

from regintel.domain.ontology import (
    ALWAYS_INCLUDED,
    MEMBER_KINDS,
    ContextPayload,
    Entity,
    EntityKind,
    PayloadKind,
)
from regintel.errors import NotFound
from regintel.ontology.formatters import light, truncate
from regintel.ontology.graph import MAX_PER_KIND
from regintel.ontology.loader import ProjectContext

MAX_PROJECTS = 20
MAX_LINKED = 20
COUNTED_KINDS = (EntityKind.TASK, EntityKind.GOAL, EntityKind.OUTPUT, EntityKind.RISK,
                 EntityKind.DECISION, EntityKind.REQUIREMENT)
_GLOBAL_FIELDS = ("id", "name", "state_key", "type_key", "description", "next_step_short",
                  "start_at", "end_at", "updated_at", "facet_context", "facet_scale",
                  "facet_stage")


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


def _payload(kind: PayloadKind, data: dict[str, Any]) -> ContextPayload:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)
    return ContextPayload(kind=kind, data=data, text=text, tokens=estimate_tokens(text))


def global_payload(projects: list[Entity]) -> ContextPayload:
    """The project list (light); most recently updated first, capped with an overflow count."""
    entries = []
    for project in projects[:MAX_PROJECTS]:
        row = light(project)
        entries.append({k: row[k] for k in _GLOBAL_FIELDS if k in row})
    return _payload(PayloadKind.GLOBAL, {
        "type": PayloadKind.GLOBAL.value, "projects": entries,
        "more": max(0, len(projects) - MAX_PROJECTS)})


def project_header(ctx: ProjectContext) -> dict[str, Any]:
    d = ctx.project.data
    header = light(ctx.project)
    long_step = truncate(d.get("next_step_long"), 200)
    if long_step:
        header["next_step_long"] = long_step
    doc_id = d.get("context_document_id")
    if doc_id is not None:
        header["context_document_id"] = str(doc_id)
        document = ctx.index.get(doc_id)
        if document is not None and document.kind is EntityKind.DOCUMENT:
            header["context_document_title"] = document.label
    header["entity_counts"] = {k.plural: len(ctx.members.get(k, [])) for k in COUNTED_KINDS}
    return header


def entity_slices(ctx: ProjectContext, per_kind: int = MAX_PER_KIND) -> dict[str, Any]:
    """Goals, documents and outputs by project_id (flagged ``direct_edge``); the other kinds
    only when directly linked to the project. Each slice keeps the top ``per_kind`` by the
    snapshot's priority, and says how many more there are."""
    slices: dict[str, Any] = {}
    for kind in MEMBER_KINDS:
        rows = ctx.members.get(kind, [])
        if kind not in ALWAYS_INCLUDED:
            rows = [e for e in rows if ctx.is_direct(e.id)]
        if not rows:
            continue
        top = ctx.ranked(rows)[:per_kind]
        slices[kind.plural] = {"items": [light(e, ctx) for e in top],
                               "more": len(rows) - len(top)}
    return slices


def coverage_diagnostics(ctx: ProjectContext) -> list[str]:
    """Plain-language warnings about missing edges, for the model to mention when relevant."""
    notes = []
    for plural, cov in ctx.coverage.items():
        if cov.unlinked:
            notes.append(f"{cov.unlinked} of {cov.total} {plural} are not linked to the "
                         "project by an edge")
    return notes


def snapshot_json(ctx: ProjectContext) -> dict[str, Any]:
    return ctx.snapshot.model_dump(mode="json")


SLICE_CAPS = (MAX_PER_KIND, 5, 3, 1, 0)


def project_payload(ctx: ProjectContext, *, token_budget: int | None = None) -> ContextPayload:
    """Header, graph snapshot, entity slices and coverage notes. A large project's block is
    ~18k tokens; with ``token_budget`` the slices shrink (10, 5, 3, 1, then none per kind, the
    "more" counts saying what was left out) until the block fits. The graph keeps the spec's
    caps: the detail tools give the rest."""
    header, graph, notes = project_header(ctx), snapshot_json(ctx), coverage_diagnostics(ctx)
    payload: ContextPayload | None = None
    for cap in SLICE_CAPS:
        payload = _payload(PayloadKind.PROJECT, {
            "type": PayloadKind.PROJECT.value, "project": header, "graph": graph,
            "entities": entity_slices(ctx, cap), "coverage_diagnostics": notes})
        if token_budget is None or payload.tokens <= token_budget:
            break
    assert payload is not None
    return payload


def focus_payload(ctx: ProjectContext, entity_id: UUID, *,
                  include_graph: bool = False) -> ContextPayload:
    entity = ctx.index.get(entity_id)
    if entity is None or entity.kind is EntityKind.PROJECT:
        raise NotFound(f"no entity {entity_id} in project {ctx.project.id}")
    focus = light(entity, ctx)
    focus["kind"] = entity.kind.value
    focus.setdefault("direct_edge", ctx.is_direct(entity.id))
    rels, linked = [], []
    for edge in ctx.adjacency.get(entity.id, ()):
        outgoing = edge.src_id == entity.id
        other = ctx.index[edge.dst_id if outgoing else edge.src_id]
        rels.append({"id": str(edge.id), "rel": edge.rel, "direction": "out" if outgoing
                     else "in", "other_id": str(other.id), "other_kind": other.kind.value})
        if other.kind is not EntityKind.PROJECT:
            linked.append(other)
    linked = ctx.ranked(list({e.id: e for e in linked}.values()))
    data: dict[str, Any] = {
        "type": PayloadKind.FOCUS.value, "project": project_header(ctx), "focus": focus,
        "relationships": rels,
        "linked": [{"kind": e.kind.value, **light(e, ctx)} for e in linked[:MAX_LINKED]],
        "linked_more": max(0, len(linked) - MAX_LINKED)}
    if include_graph:
        data["graph"] = snapshot_json(ctx)
    return _payload(PayloadKind.FOCUS, data)
