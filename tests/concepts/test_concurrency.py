"""Ten conversations capture the same concept at the same moment: one node.

Each capture runs through its own services (own resolver, own locks), as ten worker
processes would, so only the graph's MERGE on the canonical key keeps them to one node."""

from __future__ import annotations

import asyncio

from regintel.adapters.graph.falkordb_store import FalkorGraphStore
from tests.concepts.conftest import Build, Tenancy
from tests.concepts.turns import run_turn


async def test_ten_concurrent_captures_leave_one_node(build: Build, tenancy: Tenancy,
                                                      graph: FalkorGraphStore) -> None:
    identities = [await tenancy.conversation() for _ in range(10)]
    payloads = [{"concepts": [{
        "domain": "AML", "kind": "SUSPICIOUS_ACTIVITY_REPORT", "jurisdiction": "ADGM",
        "prefLabel": "Suspicious Activity Report",
        "altLabels": [f"SAR form {i + 1}", "SAR"]}]} for i in range(10)]
    turns = await asyncio.gather(*(
        run_turn(build(), identity, "When must we file a SAR?", payload=payload)
        for identity, payload in zip(identities, payloads, strict=True)))
    ids = {tuple(t.referenced) for t in turns}
    assert ids == {("concept:AML:SUSPICIOUS_ACTIVITY_REPORT:ADGM",)}
    assert await graph.count_nodes("Concept") == 1, (await graph.dump())[0]
    node = (await graph.get_nodes("Concept", ["concept:AML:SUSPICIOUS_ACTIVITY_REPORT:ADGM"]))[0]
    # Concurrent alias appends are atomic: no conversation's phrasing was lost.
    alts = node.properties["altLabels"]
    assert isinstance(alts, list)
    assert {f"SAR form {i + 1}" for i in range(10)} <= set(alts)
    assert len(alts) == len(set(alts))


async def test_concurrent_captures_in_one_process_also_leave_one_node(
        build: Build, graph: FalkorGraphStore) -> None:
    services = build()
    payload = {"concepts": [{"domain": "DATA_PROTECTION", "kind": "DPIA", "jurisdiction": "EU",
                             "prefLabel": "Data Protection Impact Assessment"}]}
    results = await asyncio.gather(*(services.handler.handle(payload) for _ in range(10)))
    assert {r.referencedNodeIds[0] for r in results} == {"concept:DATA_PROTECTION:DPIA:EU"}
    assert sum(len(r.created) for r in results) == 1
    assert await graph.count_nodes("Concept") == 1
