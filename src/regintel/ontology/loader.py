"""OntologyContextLoader: the spec's graph query pattern, in memory.

1. one query per entity kind by ``project_id`` (live rows only), issued concurrently
   (pipelined by the store, see ``PostgresOntologyStore.project_graph``),
2. the project's edges, in the same batch,
3. an index of every entity by id with its kind,
4. adjacency from the edges whose two ends are in the index (soft-deleted ends drop out),
5. the direct-edge map (edges between the project and an entity),
6. a BFS snapshot from the project to depth 2 with caps (see ``graph.py``),
7. coverage per kind: total by project_id, direct, unlinked.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from uuid import UUID

from regintel.domain.ontology import (
    MEMBER_KINDS,
    Coverage,
    EdgeRef,
    Entity,
    EntityKind,
    GraphSnapshot,
)
from regintel.errors import NotFound
from regintel.ontology.graph import build_snapshot, ranked
from regintel.ontology.store import OntologyStore


@dataclass
class ProjectContext:
    """Everything loaded for one project: the answerer and formatters read it, the prompt gets
    only its formatted light payload. ``members`` hold the light columns (long texts cut to 400
    characters); full rows come from the store, through the detail tools."""

    project: Entity
    members: dict[EntityKind, list[Entity]]
    index: dict[UUID, Entity]
    edges: list[EdgeRef]
    adjacency: dict[UUID, list[EdgeRef]]
    direct: dict[UUID, list[EdgeRef]]
    coverage: dict[str, Coverage]
    now: datetime
    snapshot: GraphSnapshot = field(init=False)
    scores: dict[UUID, float] = field(default_factory=dict, repr=False)

    def ranked(self, entities: list[Entity]) -> list[Entity]:
        """Highest neighbour priority first (the heuristic in ``graph.py``)."""
        return ranked(entities, self.now, self.scores)

    def is_direct(self, entity_id: UUID) -> bool:
        return entity_id in self.direct

    def neighbours(self, entity_id: UUID, kind: EntityKind | None = None, *,
                   rel: str | None = None, incoming: bool | None = None) -> list[Entity]:
        """Live entities joined to ``entity_id``; ``incoming`` True keeps edges that point at it,
        False edges that leave it, None both."""
        found: list[Entity] = []
        for edge in self.adjacency.get(entity_id, ()):
            points_in = edge.dst_id == entity_id
            if incoming is not None and points_in != incoming:
                continue
            if rel is not None and edge.rel != rel:
                continue
            other = self.index[edge.src_id if points_in else edge.dst_id]
            if kind is None or other.kind is kind:
                found.append(other)
        return found


def build_context(project: Entity, members: dict[EntityKind, list[Entity]], edges: list[EdgeRef],
                  *, now: datetime | None = None) -> ProjectContext:
    index: dict[UUID, Entity] = {project.id: project}
    for rows in members.values():
        for entity in rows:
            index[entity.id] = entity
    # Edges whose two ends are live, their ends made the index's own id objects (the store
    # already interns them): UUID equality and hashing are Python code, so below the root is
    # recognised by identity and every later look-up takes the dict's identity fast path.
    live: list[EdgeRef] = []
    adjacency: dict[UUID, list[EdgeRef]] = defaultdict(list)
    direct: dict[UUID, list[EdgeRef]] = defaultdict(list)
    root = project.id
    for edge in edges:
        src, dst = index.get(edge.src_id), index.get(edge.dst_id)
        if src is None or dst is None:
            continue
        if src.id is not edge.src_id or dst.id is not edge.dst_id:
            edge = EdgeRef(edge.id, src.id, edge.src_kind, edge.rel, dst.id, edge.dst_kind)
        live.append(edge)
        adjacency[src.id].append(edge)
        adjacency[dst.id].append(edge)
        if src.id is root:
            direct[dst.id].append(edge)
        elif dst.id is root:
            direct[src.id].append(edge)
    coverage = {}
    for kind in MEMBER_KINDS:
        rows = members.get(kind, [])
        linked = sum(1 for e in rows if e.id in direct)
        coverage[kind.plural] = Coverage(total=len(rows), direct=linked,
                                         unlinked=len(rows) - linked)
    ctx = ProjectContext(project=project, members=members, index=index, edges=live,
                         adjacency=dict(adjacency), direct=dict(direct), coverage=coverage,
                         now=now or datetime.now(UTC))
    ctx.snapshot = build_snapshot(ctx)
    return ctx


class OntologyContextLoader:
    def __init__(self, store: OntologyStore, *, pipelined: bool = True) -> None:
        """``pipelined`` False: each per-kind query in its own session (for comparison)."""
        self._store = store
        self._pipelined = pipelined

    async def load(self, tenant_id: UUID, project_id: UUID, *,
                   now: datetime | None = None) -> ProjectContext:
        rows = await self._store.project_graph(tenant_id, project_id,
                                               pipelined=self._pipelined)
        if rows.project is None:
            raise NotFound(f"no project {project_id}")
        return build_context(rows.project, rows.members, rows.edges, now=now)

    async def projects(self, tenant_id: UUID) -> list[Entity]:
        return await self._store.projects(tenant_id)
