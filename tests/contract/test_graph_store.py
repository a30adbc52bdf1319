"""GraphStore contract, run against the real embedded FalkorDB."""

from __future__ import annotations

import asyncio

import pytest

from regintel.adapters.graph.falkordb_store import FalkorGraphStore
from regintel.errors import InvalidRequest


async def test_merge_node_is_idempotent_and_stamps_times(graph: FalkorGraphStore) -> None:
    first = await graph.merge_node("AmlConcept", "aml:cdd",
                                   {"prefLabel": "Customer Due Diligence", "altLabels": ["CDD"]})
    await asyncio.sleep(0.01)
    second = await graph.merge_node("AmlConcept", "aml:cdd", {"definition": "Checks on a customer"})
    assert await graph.count_nodes("AmlConcept") == 1
    assert second.properties["created_at"] == first.properties["created_at"]
    assert int(str(second.properties["updated_at"])) > int(str(first.properties["updated_at"]))
    assert second.properties["prefLabel"] == "Customer Due Diligence"  # merged, not replaced
    assert second.properties["altLabels"] == ["CDD"]


async def test_injection_in_values_is_stored_literally(graph: FalkorGraphStore) -> None:
    await graph.merge_node("Concept", "safe", {"prefLabel": "keep me"})
    payload = "x'}) MATCH (n) DETACH DELETE n //"
    node = await graph.merge_node("Concept", payload, {"prefLabel": payload,
                                                       "definition": "\" RETURN 1; //"})
    assert node.key == payload and node.properties["prefLabel"] == payload
    assert await graph.count_nodes("Concept") == 2
    found = await graph.get_nodes("Concept", ["safe", payload, "absent"])
    assert {n.key for n in found} == {"safe", payload}


async def test_labels_and_relationships_outside_whitelist_are_refused(
    graph: FalkorGraphStore,
) -> None:
    with pytest.raises(InvalidRequest):
        await graph.merge_node("User", "u1", {"email": "a@b.c"})
    await graph.merge_node("Concept", "a", {})
    await graph.merge_node("Concept", "b", {})
    with pytest.raises(InvalidRequest):
        await graph.merge_edge("Concept", "a", "OWNS", "Concept", "b", {})


async def test_edges_merge_once_and_are_visible_from_both_ends(graph: FalkorGraphStore) -> None:
    await graph.merge_node("DataProtectionConcept", "gdpr:personal-data",
                           {"prefLabel": "personal data"})
    await graph.merge_node("Section", "gdpr:art4", {"title": "Article 4 Definitions"})
    edge = await graph.merge_edge("DataProtectionConcept", "gdpr:personal-data", "DEFINED_IN",
                                  "Section", "gdpr:art4", {"clause": "4(1)"})
    again = await graph.merge_edge("DataProtectionConcept", "gdpr:personal-data", "DEFINED_IN",
                                   "Section", "gdpr:art4", {})
    assert edge.rel == "DEFINED_IN" and "created_at" in edge.properties
    assert again.properties["created_at"] == edge.properties["created_at"]
    around = await graph.neighbours("Section", "gdpr:art4")
    assert len(around) == 1
    seen_edge, other = around[0]
    assert seen_edge.src_key == "gdpr:personal-data" and seen_edge.dst_key == "gdpr:art4"
    assert other.key == "gdpr:personal-data" and "DataProtectionConcept" in other.labels


async def test_edge_to_missing_node_is_an_error(graph: FalkorGraphStore) -> None:
    await graph.merge_node("Concept", "a", {})
    with pytest.raises(LookupError):
        await graph.merge_edge("Concept", "a", "RELATED", "Concept", "nowhere", {})
    assert await graph.count_nodes("Concept") == 1  # no phantom node created


async def test_ping(graph: FalkorGraphStore) -> None:
    await graph.ping()


async def test_reads_of_a_never_written_graph_are_empty(graph: FalkorGraphStore) -> None:
    assert await graph.get_nodes("Concept", ["a"]) == []
    assert await graph.count_nodes("Concept") == 0
    assert await graph.neighbours("Concept", "a") == []
