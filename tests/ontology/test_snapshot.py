"""The loader and the bounded snapshot: coverage, direct_edge flags, BFS depth, every cap with
its overflow count, and the neighbour priority."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from regintel.domain.ontology import Entity, EntityKind
from regintel.ontology.graph import MAX_EDGES, MAX_NODES, MAX_PER_KIND
from regintel.ontology.payloads import entity_slices
from regintel.ontology.service import OntologyService

K = EntityKind


class Builder:
    def __init__(self, service: OntologyService, tenant_id: UUID, project: Entity) -> None:
        self.service, self.tenant_id, self.project = service, tenant_id, project

    async def many(self, kind: K, rows: list[dict[str, Any]]) -> list[Entity]:
        return await self.service.store.create_many(self.tenant_id, kind, self.project.id, rows)

    async def one(self, kind: K, label: str, **fields: Any) -> Entity:
        label_field = {K.GOAL: "name", K.OUTPUT: "name", K.PLAN: "name",
                       K.REQUIREMENT: "text"}.get(kind, "title")
        return (await self.many(kind, [{label_field: label, **fields}]))[0]

    async def edges(self, *triples: tuple[Entity, str, Entity]) -> None:
        await self.service.store.add_edges(self.tenant_id, self.project.id, triples)

    async def direct(self, *entities: Entity) -> None:
        await self.edges(*((self.project, f"has_{e.kind.value}", e) for e in entities))


async def _builder(service: OntologyService, tenant_id: UUID) -> Builder:
    return Builder(service, tenant_id, await service.create_project(tenant_id, {"name": "P"}))


async def test_coverage_direct_flags_and_bfs_depth(service: OntologyService,
                                                   tenant_id: UUID) -> None:
    b = await _builder(service, tenant_id)
    g1, g2, g3 = [await b.one(K.GOAL, n) for n in ("g1", "g2", "g3")]
    d1, d2 = [await b.one(K.DOCUMENT, n) for n in ("d1", "d2")]
    o1 = await b.one(K.OUTPUT, "o1")
    r1, r2, r3 = [await b.one(K.RISK, n) for n in ("r1", "r2", "r3")]
    t1, t3 = await b.one(K.TASK, "t1"), await b.one(K.TASK, "t3")
    await b.direct(g1, d1, r1, t1)
    await b.edges((t1, "mitigates", r3), (t1, "supports_goal", g3), (t3, "mitigates", r3))

    ctx = await service.loader.load(tenant_id, b.project.id)
    cov = {k: (c.total, c.direct, c.unlinked) for k, c in ctx.coverage.items()}
    assert cov["goals"] == (3, 1, 2) and cov["documents"] == (2, 1, 1)
    assert cov["outputs"] == (1, 0, 1) and cov["risks"] == (3, 1, 2)
    assert cov["tasks"] == (2, 1, 1) and cov["signals"] == (0, 0, 0)
    assert set(cov) == {k.plural for k in K if k is not K.PROJECT}

    snap = ctx.snapshot
    nodes = {n.id: n for n in snap.nodes}
    assert snap.root_id == b.project.id and nodes[b.project.id].depth == 0
    assert {i: (n.depth, n.direct_edge) for i, n in nodes.items() if i != b.project.id} == {
        g1.id: (1, True), d1.id: (1, True), r1.id: (1, True), t1.id: (1, True),
        r3.id: (2, False), g3.id: (2, False)}
    # t3 is three hops away; g2, d2, o1, r2 have no edges: none is in the snapshot.
    assert not {t3.id, g2.id, d2.id, o1.id, r2.id} & set(nodes)
    assert len(snap.edges) == 6 and snap.overflow.nodes == 0 and snap.overflow.edges == 0
    assert snap.caps == {"nodes": MAX_NODES, "edges": MAX_EDGES, "per_kind": MAX_PER_KIND}

    slices = entity_slices(ctx)
    goals = {i["id"]: i["direct_edge"] for i in slices["goals"]["items"]}
    assert goals == {str(g1.id): True, str(g2.id): False, str(g3.id): False}
    assert {i["id"]: i["direct_edge"] for i in slices["documents"]["items"]} == {
        str(d1.id): True, str(d2.id): False}
    assert [i["direct_edge"] for i in slices["outputs"]["items"]] == [False]
    # Edge-driven kinds: only the directly linked ones; the rest are counted as unlinked.
    assert [i["id"] for i in slices["risks"]["items"]] == [str(r1.id)]
    assert [i["id"] for i in slices["tasks"]["items"]] == [str(t1.id)]


async def test_per_kind_cap_keeps_the_highest_priority(service: OntologyService,
                                                       tenant_id: UUID) -> None:
    b = await _builder(service, tenant_id)
    low = await b.many(K.RISK, [{"title": f"low {i}", "impact": "low"} for i in range(10)])
    critical = await b.many(K.RISK, [{"title": f"crit {i}", "impact": "critical"}
                                     for i in range(5)])
    tasks = await b.many(K.TASK, [{"title": f"t{i}"} for i in range(11)])
    blocked = await b.one(K.TASK, "blocked one", state_key="blocked")
    await b.direct(*low, *critical, *tasks, blocked)

    ctx = await service.loader.load(tenant_id, b.project.id)
    kept = {n.id for n in ctx.snapshot.nodes}
    assert sum(1 for n in ctx.snapshot.nodes if n.kind is K.RISK) == MAX_PER_KIND
    assert {r.id for r in critical} <= kept and blocked.id in kept
    assert ctx.snapshot.overflow.by_kind == {"risks": 5, "tasks": 2}
    assert ctx.snapshot.overflow.nodes == 7
    slices = entity_slices(ctx)
    assert len(slices["risks"]["items"]) == MAX_PER_KIND and slices["risks"]["more"] == 5
    assert slices["tasks"]["items"][0]["id"] == str(blocked.id)  # highest priority first


async def test_node_cap(service: OntologyService, tenant_id: UUID) -> None:
    b = await _builder(service, tenant_id)
    made: list[Entity] = []
    for kind in (K.TASK, K.GOAL, K.RISK, K.REQUIREMENT, K.DECISION, K.MILESTONE, K.PLAN):
        label = {K.GOAL: "name", K.PLAN: "name", K.REQUIREMENT: "text"}.get(kind, "title")
        made += await b.many(kind, [{label: f"{kind.value} {i}"} for i in range(10)])
    await b.direct(*made)
    ctx = await service.loader.load(tenant_id, b.project.id)
    assert len(ctx.snapshot.nodes) == MAX_NODES  # the root included
    assert ctx.snapshot.overflow.nodes == 70 - (MAX_NODES - 1)
    assert sum(ctx.snapshot.overflow.by_kind.values()) == ctx.snapshot.overflow.nodes
    assert len(ctx.snapshot.edges) == MAX_NODES - 1 and ctx.snapshot.overflow.edges == 0


async def test_edge_cap(service: OntologyService, tenant_id: UUID) -> None:
    b = await _builder(service, tenant_id)
    tasks = await b.many(K.TASK, [{"title": f"t{i}"} for i in range(10)])
    goals = await b.many(K.GOAL, [{"name": f"g{i}"} for i in range(10)])
    await b.direct(*tasks, *goals)
    await b.edges(*((t, "supports_goal", g) for t in tasks for g in goals))
    ctx = await service.loader.load(tenant_id, b.project.id)
    snap = ctx.snapshot
    assert len(snap.nodes) == 21 and len(snap.edges) == MAX_EDGES
    assert snap.overflow.edges == 20 + 100 - MAX_EDGES and snap.overflow.nodes == 0
    # The project's own edges come first, so every kept node stays connected to the root.
    direct = [e for e in snap.edges if e.src_id == b.project.id]
    assert len(direct) == 20
    kept = {n.id for n in snap.nodes}
    assert all(e.src_id in kept and e.dst_id in kept for e in snap.edges)
