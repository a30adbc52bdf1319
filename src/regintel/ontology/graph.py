"""The bounded graph snapshot: BFS from the project root to depth 2 with caps.

Neighbour priority (higher first), so the caps keep what a compliance lead looks at first:

- blocked task +100; overdue task or milestone (due date passed, not done) +40;
  task or requirement priority 1..5 adds (6 - priority) × 5;
- risk not mitigated: critical +90, high +80, medium +30;
- active goal +70;
- recently updated: up to +20, fading linearly to 0 over 30 days;
- done / closed / mitigated / archived states −30.

Ties break by kind order, then id, so the same data always gives the same snapshot.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol
from uuid import UUID

from regintel.domain.ontology import (
    DONE_STATES,
    Coverage,
    EdgeRef,
    Entity,
    EntityKind,
    GraphEdge,
    GraphNode,
    GraphOverflow,
    GraphSnapshot,
)

MAX_DEPTH = 2
MAX_NODES = 60  # the root included
MAX_EDGES = 80
MAX_PER_KIND = 10
NODE_NAME_CHARS = 80
_IMPACT_SCORE = {"critical": 90, "high": 80, "medium": 30}
_KIND_ORDER = {k: i for i, k in enumerate(EntityKind)}


def is_done(entity: Entity) -> bool:
    return entity.state in DONE_STATES or entity.data.get("completed_at") is not None


def is_overdue(entity: Entity, now: datetime) -> bool:
    due = entity.data.get("due_at")
    return isinstance(due, datetime) and due < now and not is_done(entity)


def is_mitigated(entity: Entity) -> bool:
    return entity.data.get("mitigated_at") is not None or entity.state in DONE_STATES


def priority_score(entity: Entity, now: datetime) -> float:
    score = 0.0
    kind, state = entity.kind, entity.state
    if kind in (EntityKind.TASK, EntityKind.REQUIREMENT):
        priority = entity.data.get("priority")
        if isinstance(priority, int):
            score += (6 - priority) * 5
    if kind is EntityKind.TASK and state == "blocked":
        score += 100
    if kind in (EntityKind.TASK, EntityKind.MILESTONE) and is_overdue(entity, now):
        score += 40
    if kind is EntityKind.RISK and not is_mitigated(entity):
        score += _IMPACT_SCORE.get(str(entity.data.get("impact")), 0)
    if kind is EntityKind.GOAL and state == "active":
        score += 70
    updated = entity.data.get("updated_at")
    if isinstance(updated, datetime):
        age_days = max(0.0, (now - updated).total_seconds() / 86400)
        score += max(0.0, 20 * (1 - age_days / 30))
    if state in DONE_STATES:
        score -= 30
    return score


def ranked(entities: list[Entity], now: datetime,
           scores: dict[UUID, float] | None = None) -> list[Entity]:
    """Highest priority first; ``scores`` memoises the scores (the snapshot, the slices and
    the answers rank the same entities)."""
    memo = scores if scores is not None else {}

    def key(entity: Entity) -> tuple[float, int, int]:
        score = memo.get(entity.id)
        if score is None:
            score = memo[entity.id] = priority_score(entity, now)
        return (-score, _KIND_ORDER[entity.kind], entity.id.int)

    return sorted(entities, key=key)


def short_date(value: Any) -> str | None:
    return value.strftime("%Y-%m-%d") if isinstance(value, datetime) else None


def _node(entity: Entity, depth: int, direct: bool) -> GraphNode:
    name = entity.label
    if len(name) > NODE_NAME_CHARS:
        name = name[:NODE_NAME_CHARS - 1].rstrip() + "…"
    return GraphNode.model_construct(
        id=entity.id, kind=entity.kind, name=name, state_key=entity.data.get("state_key"),
        type_key=entity.data.get("type_key"), direct_edge=direct, depth=depth,
        last_updated=short_date(entity.data.get("updated_at")))


class ProjectView(Protocol):
    """What the snapshot reads of a loaded project (``loader.ProjectContext``, which builds
    its snapshot with this module: the loader imports us, never the other way)."""

    @property
    def project(self) -> Entity: ...
    @property
    def index(self) -> dict[UUID, Entity]: ...
    @property
    def edges(self) -> list[EdgeRef]: ...
    @property
    def adjacency(self) -> dict[UUID, list[EdgeRef]]: ...
    @property
    def coverage(self) -> dict[str, Coverage]: ...

    def ranked(self, entities: list[Entity]) -> list[Entity]: ...

    def is_direct(self, entity_id: UUID) -> bool: ...


def _reachable(ctx: ProjectView) -> dict[UUID, int]:
    """Depth of every entity within MAX_DEPTH of the root, ignoring the caps. Node ids here
    are the index's own objects (see ``build_context``), so ends compare by identity."""
    depth_of = {ctx.project.id: 0}
    frontier = [ctx.project.id]
    for depth in range(1, MAX_DEPTH + 1):
        nxt: list[UUID] = []
        for node_id in frontier:
            for edge in ctx.adjacency.get(node_id, ()):
                other = edge.dst_id if edge.src_id is node_id else edge.src_id
                if other not in depth_of:
                    depth_of[other] = depth
                    nxt.append(other)
        frontier = nxt
    return depth_of


def build_snapshot(ctx: ProjectView) -> GraphSnapshot:
    root = ctx.project
    depth_of = _reachable(ctx)
    kept: dict[UUID, GraphNode] = {root.id: _node(root, 0, False)}
    per_kind: dict[EntityKind, int] = {}
    frontier = [root.id]
    for depth in range(1, MAX_DEPTH + 1):
        candidates: dict[UUID, Entity] = {}
        for node_id in frontier:
            for edge in ctx.adjacency.get(node_id, ()):
                other = edge.dst_id if edge.src_id is node_id else edge.src_id
                if depth_of.get(other) == depth and other not in kept:
                    candidates[other] = ctx.index[other]
        frontier = []
        for entity in ctx.ranked(list(candidates.values())):
            if len(kept) >= MAX_NODES or per_kind.get(entity.kind, 0) >= MAX_PER_KIND:
                continue
            per_kind[entity.kind] = per_kind.get(entity.kind, 0) + 1
            kept[entity.id] = _node(entity, depth, ctx.is_direct(entity.id))
            frontier.append(entity.id)

    # Edges among kept nodes: the project's own first, then in the order nodes were kept.
    order = {node_id: i for i, node_id in enumerate(kept)}
    among = [e for e in ctx.edges if e.src_id in kept and e.dst_id in kept]
    among.sort(key=lambda e: (root.id not in (e.src_id, e.dst_id),
                              max(order[e.src_id], order[e.dst_id]),
                              min(order[e.src_id], order[e.dst_id]), e.rel, e.id.int))
    edges = [GraphEdge.model_construct(id=e.id, src_id=e.src_id, src_kind=e.src_kind,
                                       dst_id=e.dst_id, dst_kind=e.dst_kind, rel=e.rel)
             for e in among[:MAX_EDGES]]

    omitted_by_kind: dict[str, int] = {}
    for node_id in depth_of:
        if node_id not in kept:
            plural = ctx.index[node_id].kind.plural
            omitted_by_kind[plural] = omitted_by_kind.get(plural, 0) + 1
    overflow = GraphOverflow(nodes=len(depth_of) - len(kept),
                             edges=max(0, len(among) - MAX_EDGES), by_kind=omitted_by_kind)
    return GraphSnapshot.model_construct(
        root_id=root.id, root_kind="project", max_depth=MAX_DEPTH, nodes=list(kept.values()),
        edges=edges, coverage=ctx.coverage, overflow=overflow,
        caps={"nodes": MAX_NODES, "edges": MAX_EDGES, "per_kind": MAX_PER_KIND})
