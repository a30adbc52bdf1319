"""The seed graph from the GDPR and the AI Act, and the change stream over it."""

from __future__ import annotations

import asyncio

import pytest

from regintel.adapters.graph.falkordb_store import FalkorGraphStore
from regintel.concepts.changes import GraphChangeDetector, purge_deletions
from regintel.domain.concepts import CONCEPT
from regintel.errors import ResyncRequired
from regintel.ports.graph import now_ms
from tests.concepts.conftest import SHARED, Build

PERSONAL_DATA = "concept:DATA_PROTECTION:PERSONAL_DATA:EU"


async def test_seed_creates_concepts_sections_and_edges_idempotently(
        build: Build, graph: FalkorGraphStore) -> None:
    services = build()
    report = await services.seeder.seed(SHARED)
    assert report.regulations == ["gdpr", "ai-act", "adgm-aml"]
    assert report.concepts == 26 + 68 + 92 and report.refused == 0
    assert report.sections == 99 + 113 + 1
    assert await graph.count_nodes("DataProtectionConcept") == 26
    assert await graph.count_nodes("AiConcept") == 68
    # The ADGM AML rulebook's glossary (issue 38: the demo is about AML, and "money
    # laundering" found nothing): public definitions, each DEFINED_IN the glossary.
    assert await graph.count_nodes("AmlConcept") == 92
    mlro = {(e.rel, n.key) for e, n in await services.client.neighbours(
        "concept:AML:MONEY_LAUNDERING_REPORTING_OFFICER:ADGM")}
    assert ("DEFINED_IN", "section:adgm-aml:art-glossary") in mlro
    again = await services.seeder.seed(SHARED, only=["gdpr"])
    assert await graph.count_nodes(CONCEPT) == 94 + 92 and again.concepts == 26

    around = {(e.rel, n.key) for e, n in
              await services.client.neighbours("concept:DATA_PROTECTION:GENETIC_DATA:EU")}
    assert ("DEFINED_IN", "section:gdpr:art-4") in around
    assert ("BROADER", PERSONAL_DATA) in around and ("NARROWER", PERSONAL_DATA) in around
    ai = {(e.rel, n.key) for e, n in
          await services.client.neighbours("concept:AI:GENERAL_PURPOSE_AI_SYSTEM:EU")}
    assert ("BROADER", "concept:AI:AI_SYSTEM:EU") in ai

    nodes, edges = await services.client.bfs([PERSONAL_DATA], depth=2, max_nodes=15,
                                             max_edges=20)
    assert nodes[0].key == PERSONAL_DATA and len(nodes) == 15 and len(edges) <= 20
    assert await services.client.get_nodes_by_ids(["section:gdpr:art-4", "nope", PERSONAL_DATA])
    summaries = await services.client.summaries([PERSONAL_DATA, "section:gdpr:art-4"])
    assert summaries[0].prefLabel == "personal data" and summaries[0].jurisdiction == "EU"
    assert summaries[1].prefLabel == "Definitions"


async def test_change_detector_reports_adds_updates_and_removals(
        build: Build, graph: FalkorGraphStore) -> None:
    services = build()
    detector = GraphChangeDetector(graph, poll_interval_s=0.01)
    start = 0
    await services.handler.handle({"concepts": [{"domain": "AML", "kind": "SAR",
                                                 "jurisdiction": "ADGM",
                                                 "prefLabel": "Suspicious Activity Report"}]})
    first = await detector.patches_since(start)
    assert [(p.op, p.kind, p.id) for p in first] == [("add", "node", "concept:AML:SAR:ADGM")]
    cursor = first[-1].at + 1
    await asyncio.sleep(0.01)
    await services.writer.upsert_node(CONCEPT, "concept:AML:SAR:ADGM", {"definition": "A report."})
    await services.writer.upsert_node("Section", "section:aml:14.1", {"document": "AML",
                                                                      "clause": "14.1"})
    await services.writer.link(CONCEPT, "concept:AML:SAR:ADGM", "DEFINED_IN", "Section",
                               "section:aml:14.1")
    second = await detector.patches_since(cursor)
    assert {(p.op, p.kind, p.id) for p in second} == {
        ("update", "node", "concept:AML:SAR:ADGM"), ("add", "node", "section:aml:14.1"),
        ("add", "edge", "concept:AML:SAR:ADGM-[DEFINED_IN]->section:aml:14.1")}
    cursor = max(p.at for p in second) + 1
    await asyncio.sleep(0.01)
    assert await services.writer.delete_edge(CONCEPT, "concept:AML:SAR:ADGM", "DEFINED_IN",
                                             "Section", "section:aml:14.1")
    assert await services.writer.delete_node("Section", "section:aml:14.1")
    third = await detector.patches_since(cursor)
    assert {(p.op, p.kind, p.id) for p in third} == {
        ("remove", "edge", "concept:AML:SAR:ADGM-[DEFINED_IN]->section:aml:14.1"),
        ("remove", "node", "section:aml:14.1")}
    assert await services.client.get_nodes_by_ids(["section:aml:14.1"]) == []

    streamed = [p async for p in detector.stream(0, max_polls=2)]
    ids = [(p.op, p.id) for p in streamed]
    assert len(ids) == len(set(ids))  # the inclusive cursor never repeats a patch
    assert ("remove", "section:aml:14.1") in ids


async def test_a_full_batch_of_one_kind_holds_back_later_changes_of_the_others(
        build: Build, graph: FalkorGraphStore) -> None:
    # Nodes fill the batch; the edge written after them must not move the cursor past the
    # nodes the batch left out, or a stream would never send them.
    services = build()
    detector = GraphChangeDetector(graph, poll_interval_s=0.01, batch=2)
    await services.handler.handle({"concepts": [{"domain": "AML", "kind": "SAR",
                                                 "jurisdiction": "ADGM",
                                                 "prefLabel": "Suspicious Activity Report"}]})
    keys = ["concept:AML:SAR:ADGM"] + [f"section:aml:{n}" for n in ("14.1", "14.2", "14.3")]
    for key in keys[1:]:
        await asyncio.sleep(0.005)
        await services.writer.upsert_node("Section", key, {"document": "AML"})
    await asyncio.sleep(0.005)
    await services.writer.link(CONCEPT, keys[0], "DEFINED_IN", "Section", keys[1])

    first = await detector.patches_since(0)
    assert [(p.kind, p.id) for p in first] == [("node", keys[0]), ("node", keys[1])]
    streamed = [p async for p in detector.stream(0, max_polls=5)]  # one new node a poll
    assert {p.id for p in streamed if p.kind == "node"} == set(keys)
    assert [p.kind for p in streamed].count("edge") == 1


async def test_a_reader_older_than_the_purge_is_told_to_reload(
        build: Build, graph: FalkorGraphStore) -> None:
    services = build()
    detector = GraphChangeDetector(graph, poll_interval_s=0.01)
    await services.writer.upsert_node("Section", "section:aml:1", {"document": "AML"})
    await asyncio.sleep(0.005)
    since = now_ms()
    await asyncio.sleep(0.005)
    assert await graph.delete_node("Section", "section:aml:1")
    assert [p.op for p in await detector.patches_since(since)] == ["remove"]
    await purge_deletions(graph, older_than_days=0)  # everything up to now is forgotten
    with pytest.raises(ResyncRequired, match="no longer kept"):
        await detector.patches_since(since)
    with pytest.raises(ResyncRequired):
        _ = [p async for p in detector.stream(since, max_polls=1)]
    assert await detector.patches_since(now_ms()) == []  # a fresh cursor reads on
