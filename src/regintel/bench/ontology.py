"""Context-build latency of a compliance project of a given size.

Builds a random but realistic project (seeded RNG): a kind mix weighted like a real programme
(many tasks and requirements, fewer goals), ~70 % of entities linked directly to the project,
the other edges drawn from the allowed relations between random entities, realistic states
(some blocked or overdue tasks, unmitigated risks) and text lengths. Then times the whole
context build — the loader's parallel queries, the BFS snapshot and the light project payload —
over repeated runs.
"""

from __future__ import annotations

import gc
import os
import random
import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

from sqlalchemy import text

from regintel.bench.metrics import percentile
from regintel.container import Container
from regintel.domain.ontology import (
    ALLOWED_RELATIONS,
    IMPACTS,
    LABEL_FIELD,
    MEMBER_KINDS,
    Entity,
    EntityKind,
)
from regintel.ontology.loader import OntologyContextLoader
from regintel.ontology.payloads import project_payload

TENANT = "bench-ontology"
K = EntityKind
KIND_WEIGHTS = {K.TASK: 38, K.REQUIREMENT: 15, K.RISK: 10, K.DOCUMENT: 8, K.DECISION: 6,
                K.MILESTONE: 5, K.GOAL: 4, K.OUTPUT: 4, K.PLAN: 3, K.SIGNAL: 4, K.INSIGHT: 3}
DIRECT_SHARE = 0.7
_WORDS = ("customer", "due", "diligence", "screening", "sanctions", "report", "transaction",
          "monitoring", "policy", "review", "board", "approval", "training", "record",
          "retention", "beneficial", "owner", "risk", "assessment", "alert", "backlog", "vendor",
          "data", "feed", "jurisdiction", "enhanced", "procedure", "control", "testing",
          "governance", "evidence", "regulator", "filing", "threshold", "escalation")
_STATES = {K.TASK: ("todo", "todo", "in_progress", "in_progress", "blocked", "done", "done"),
           K.GOAL: ("active", "active", "draft", "achieved"),
           K.RISK: ("open", "open", "open", "mitigated"),
           K.REQUIREMENT: ("open", "open", "met")}


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words)).capitalize()


def _row(kind: EntityKind, rng: random.Random, now: datetime) -> dict[str, Any]:
    """Every row of a kind has the same keys (one multi-row INSERT per kind)."""
    row: dict[str, Any] = {LABEL_FIELD[kind]: _sentence(rng, rng.randint(4, 12)),
                           "state_key": rng.choice(_STATES.get(kind, ("active", "draft"))),
                           "type_key": f"{kind.value}.bench",
                           "props": {"owner": rng.choice(("KYC ops", "MLRO", "Legal"))}}
    when = now - timedelta(days=rng.randint(0, 120))
    row["updated_at"] = when
    if kind in (K.TASK, K.MILESTONE):
        row["due_at"] = now + timedelta(days=rng.randint(-30, 90))
        row["description"] = _sentence(rng, rng.randint(10, 40))
    if kind in (K.TASK, K.REQUIREMENT):
        row["priority"] = rng.randint(1, 5)
    if kind is K.RISK:
        row |= {"impact": rng.choice(IMPACTS), "probability": round(rng.random(), 2),
                "content": _sentence(rng, rng.randint(10, 40))}
    if kind is K.DECISION:
        row |= {"outcome": _sentence(rng, 15), "rationale": _sentence(rng, 30)}
    if kind in (K.GOAL, K.DOCUMENT, K.OUTPUT, K.PLAN):
        row["description"] = _sentence(rng, rng.randint(10, 40))
    if kind is K.SIGNAL:
        row["payload"] = {"summary": _sentence(rng, 12)}
        del row["props"]
    return row


async def build_project(container: Container, tenant_id: UUID, entities: int, edges: int,
                        *, seed: int = 7) -> UUID:
    rng = random.Random(seed)  # noqa: S311 (reproducible test data, not security)
    now = datetime.now(UTC)
    service = container.projects
    store = service.store
    project = await service.create_project(tenant_id, {
        "name": f"Bench programme ({entities} entities, {edges} edges)",
        "description": _sentence(rng, 30), "facet_stage": "execution",
        "next_step_short": "Clear the blocked tasks"})
    kinds = rng.choices(list(KIND_WEIGHTS), weights=list(KIND_WEIGHTS.values()), k=entities)
    made: list[Entity] = []
    by_kind: dict[EntityKind, list[Entity]] = defaultdict(list)
    for kind in MEMBER_KINDS:
        count = kinds.count(kind)
        created = await store.create_many(tenant_id, kind, project.id,
                                          [_row(kind, rng, now) for _ in range(count)])
        made += created
        by_kind[kind] += created

    wanted: dict[tuple[UUID, str, UUID], tuple[Entity, str, Entity]] = {}
    direct = rng.sample(made, k=min(len(made), int(len(made) * DIRECT_SHARE), edges))
    for entity in direct:
        wanted[(project.id, f"has_{entity.kind.value}", entity.id)] = (
            project, f"has_{entity.kind.value}", entity)
    rules = [(s, r, d) for s, r, d in ALLOWED_RELATIONS
             if s is not K.PROJECT and by_kind[s] and by_kind[d]]
    attempts = 0
    while len(wanted) < edges and rules and attempts < edges * 20:
        attempts += 1
        src_kind, rel, dst_kind = rng.choice(rules)
        src, dst = rng.choice(by_kind[src_kind]), rng.choice(by_kind[dst_kind])
        if src.id != dst.id:
            wanted.setdefault((src.id, rel, dst.id), (src, rel, dst))
    batch = list(wanted.values())
    for start in range(0, len(batch), 2000):
        await store.add_edges(tenant_id, project.id, batch[start:start + 2000])
    return project.id


async def run(container: Container, *, entities: int, edges: int, runs: int = 30,
              warmup: int = 3, seed: int = 7, keep: bool = False,
              gc_freeze: bool = True, sessions: bool = False) -> dict[str, Any]:
    tenant_id = await container.documents.ensure_tenant(TENANT)
    started = time.perf_counter()
    project_id = await build_project(container, tenant_id, entities, edges, seed=seed)
    build_s = time.perf_counter() - started
    loader = OntologyContextLoader(container.projects.store, pipelined=not sessions)
    full_gcs = [0]

    def count_full_gc(phase: str, info: dict[str, Any]) -> None:
        if phase == "stop" and info["generation"] == 2:
            full_gcs[0] += 1

    gc.callbacks.append(count_full_gc)
    try:
        load_ms: list[float] = []
        total_ms: list[float] = []
        # This process's CPU time: on a shared machine, wall time also counts other programs.
        cpu_ms: list[float] = []
        for i in range(warmup + runs):
            if i == warmup and gc_freeze:
                # What a long-running server should do once started: move the start-up heap
                # (~200k objects of imported libraries) out of the collector's reach, so a
                # full collection walks only young objects. Without it, a full collection of
                # the whole heap lands on every other 2,000-entity context build.
                gc.freeze()
            c0, t0 = time.process_time(), time.perf_counter()
            ctx = await loader.load(tenant_id, project_id)
            t1 = time.perf_counter()
            payload = project_payload(ctx)
            c2, t2 = time.process_time(), time.perf_counter()
            if i >= warmup:
                load_ms.append((t1 - t0) * 1000)
                total_ms.append((t2 - t0) * 1000)
                cpu_ms.append((c2 - c0) * 1000)
        gc.callbacks.remove(count_full_gc)
        snapshot = ctx.snapshot.model_dump(mode="json")
        return {
            "entities": sum(len(v) for v in ctx.members.values()),
            "edges": len(ctx.edges), "runs": runs, "build_s": round(build_s, 2),
            "queries": "sessions" if sessions else "pipelined",
            "gc_freeze": gc_freeze, "full_gc_during_runs": full_gcs[0],
            "p50_ms": round(percentile(total_ms, 50), 1),
            "p95_ms": round(percentile(total_ms, 95), 1),
            "load_p50_ms": round(percentile(load_ms, 50), 1),
            "load_p95_ms": round(percentile(load_ms, 95), 1),
            "cpu_p50_ms": round(percentile(cpu_ms, 50), 1),
            "cpu_p95_ms": round(percentile(cpu_ms, 95), 1),
            "load_average": round(os.getloadavg()[0], 2),
            "tokens": payload.tokens,
            "snapshot": {"nodes": snapshot["nodes"], "edges": snapshot["edges"],
                         "coverage": snapshot["coverage"], "overflow": snapshot["overflow"]},
        }
    finally:
        if count_full_gc in gc.callbacks:
            gc.callbacks.remove(count_full_gc)
        if gc_freeze:
            gc.unfreeze()
        if not keep:  # the project's rows and edges go with it (ON DELETE CASCADE)
            async with container.database.tenant_session(tenant_id) as session:
                await session.execute(text("DELETE FROM onto_projects WHERE tenant_id = :t "
                                           "AND id = :p"), {"t": tenant_id, "p": project_id})


def table_rows(figures: dict[str, Any]) -> list[list[Any]]:
    snap = figures["snapshot"]
    return [["entities / edges", f"{figures['entities']} / {figures['edges']}"],
            ["per-kind queries", figures["queries"]],
            ["build project (s)", figures["build_s"]],
            ["context build p50 (ms)", figures["p50_ms"]],
            ["context build p95 (ms)", figures["p95_ms"]],
            ["of which queries p50 / p95 (ms)",
             f"{figures['load_p50_ms']} / {figures['load_p95_ms']}"],
            ["this process's CPU p50 / p95 (ms)",
             f"{figures['cpu_p50_ms']} / {figures['cpu_p95_ms']}"],
            ["machine load average (1 min)", figures["load_average"]],
            ["snapshot nodes / edges", f"{len(snap['nodes'])} / {len(snap['edges'])}"],
            ["left out nodes / edges",
             f"{snap['overflow']['nodes']} / {snap['overflow']['edges']}"],
            ["payload tokens (chars / 4)", figures["tokens"]],
            ["gc.freeze() / full collections in runs",
             f"{figures['gc_freeze']} / {figures['full_gc_during_runs']}"]]
