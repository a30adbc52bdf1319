"""GraphStore contract: one suite, run against the real embedded FalkorDB always and against a
Bolt server (Memgraph or Neo4j) when ``REGINTEL_TEST_BOLT_URL`` names one, e.g.
``bolt://localhost:7687`` — a throwaway server: every test empties it first."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator

import pytest

from regintel.adapters.graph.base import CypherGraphStore
from regintel.adapters.graph.falkordb_store import FalkorGraphStore
from regintel.errors import InvalidRequest

BOLT_URL = os.environ.get("REGINTEL_TEST_BOLT_URL")


@pytest.fixture(params=["falkordb", "bolt"])
async def store(request: pytest.FixtureRequest,
                graph: FalkorGraphStore) -> AsyncIterator[CypherGraphStore]:
    if request.param == "falkordb":
        yield graph
        return
    if not BOLT_URL:
        pytest.skip("set REGINTEL_TEST_BOLT_URL to run the contract against a Bolt server")
    from regintel.adapters.graph.bolt_store import bolt_store_from_url

    bolt = bolt_store_from_url(BOLT_URL)
    await bolt._query("MATCH (n) DETACH DELETE n")
    try:
        yield bolt
    finally:
        await bolt._query("MATCH (n) DETACH DELETE n")
        await bolt.close()


async def test_merge_node_is_idempotent_and_stamps_times(store: CypherGraphStore) -> None:
    first = await store.merge_node("AmlConcept", "aml:cdd",
                                   {"prefLabel": "Customer Due Diligence", "altLabels": ["CDD"]})
    await asyncio.sleep(0.01)
    second = await store.merge_node("AmlConcept", "aml:cdd", {"definition": "Checks on a customer"})
    assert await store.count_nodes("AmlConcept") == 1
    assert second.properties["created_at"] == first.properties["created_at"]
    assert int(str(second.properties["updated_at"])) > int(str(first.properties["updated_at"]))
    assert second.properties["prefLabel"] == "Customer Due Diligence"  # merged, not replaced
    assert second.properties["altLabels"] == ["CDD"]


async def test_injection_in_values_is_stored_literally(store: CypherGraphStore) -> None:
    await store.merge_node("Concept", "safe", {"prefLabel": "keep me"})
    payload = "x'}) MATCH (n) DETACH DELETE n //"
    node = await store.merge_node("Concept", payload, {"prefLabel": payload,
                                                       "definition": "\" RETURN 1; //"})
    assert node.key == payload and node.properties["prefLabel"] == payload
    assert await store.count_nodes("Concept") == 2
    found = await store.get_nodes("Concept", ["safe", payload, "absent"])
    assert {n.key for n in found} == {"safe", payload}


async def test_labels_and_relationships_outside_whitelist_are_refused(
    store: CypherGraphStore,
) -> None:
    with pytest.raises(InvalidRequest):
        await store.merge_node("User", "u1", {"email": "a@b.c"})
    await store.merge_node("Concept", "a", {})
    await store.merge_node("Concept", "b", {})
    with pytest.raises(InvalidRequest):
        await store.merge_edge("Concept", "a", "OWNS", "Concept", "b", {})


async def test_edges_merge_once_and_are_visible_from_both_ends(store: CypherGraphStore) -> None:
    await store.merge_node("DataProtectionConcept", "gdpr:personal-data",
                           {"prefLabel": "personal data"})
    await store.merge_node("Section", "gdpr:art4", {"title": "Article 4 Definitions"})
    edge = await store.merge_edge("DataProtectionConcept", "gdpr:personal-data", "DEFINED_IN",
                                  "Section", "gdpr:art4", {"clause": "4(1)"})
    again = await store.merge_edge("DataProtectionConcept", "gdpr:personal-data", "DEFINED_IN",
                                   "Section", "gdpr:art4", {})
    assert edge.rel == "DEFINED_IN" and "created_at" in edge.properties
    assert again.properties["created_at"] == edge.properties["created_at"]
    around = await store.neighbours("Section", "gdpr:art4")
    assert len(around) == 1
    seen_edge, other = around[0]
    assert seen_edge.src_key == "gdpr:personal-data" and seen_edge.dst_key == "gdpr:art4"
    assert other.key == "gdpr:personal-data" and "DataProtectionConcept" in other.labels


async def test_edge_to_missing_node_is_an_error(store: CypherGraphStore) -> None:
    await store.merge_node("Concept", "a", {})
    with pytest.raises(LookupError):
        await store.merge_edge("Concept", "a", "RELATED", "Concept", "nowhere", {})
    assert await store.count_nodes("Concept") == 1  # no phantom node created


async def test_ping(store: CypherGraphStore) -> None:
    await store.ping()


async def test_reads_of_a_never_written_graph_are_empty(store: CypherGraphStore) -> None:
    assert await store.get_nodes("Concept", ["a"]) == []
    assert await store.count_nodes("Concept") == 0
    assert await store.neighbours("Concept", "a") == []


async def test_extra_labels_create_only_and_atomic_list_appends(store: CypherGraphStore) -> None:
    node = await store.merge_node("Concept", "concept:a", {"prefLabel": "A", "altLabels": ["x"]},
                                  extra_labels=["AmlConcept"], create_only=True)
    assert set(node.labels) == {"Concept", "AmlConcept"}
    again = await store.merge_node("Concept", "concept:a", {"prefLabel": "B"}, create_only=True)
    assert again.properties["prefLabel"] == "A"  # create_only never overwrites
    results = await asyncio.gather(*(store.append_unique("Concept", "concept:a", "altLabels",
                                                         [f"l{i}", "x"]) for i in range(10)))
    assert all(r is not None for r in results)
    final = (await store.get_nodes("Concept", ["concept:a"]))[0].properties["altLabels"]
    assert isinstance(final, list) and sorted(final) == sorted(["x", *(f"l{i}" for i in range(10))])
    assert await store.append_unique("Concept", "concept:none", "altLabels", ["y"]) is None


async def test_concurrent_first_writes_merge_one_node(store: CypherGraphStore) -> None:
    await asyncio.gather(*(store.merge_node("Concept", "concept:same", {"n": i},
                                            extra_labels=["AiConcept"], create_only=True)
                           for i in range(10)))
    assert await store.count_nodes("Concept") == 1


async def test_lookups_neighbours_and_dump(store: CypherGraphStore) -> None:
    await store.merge_node("Concept", "concept:a", {"domain": "AML", "jurisdiction": "ADGM",
                                                   "labelsNorm": ["cdd", "customer due diligence"]})
    await store.merge_node("Concept", "concept:b", {"domain": "AML", "jurisdiction": "EU",
                                                   "labelsNorm": ["sar"]})
    await store.merge_node("Section", "section:s", {"title": "Rule 8"})
    await store.merge_edge("Concept", "concept:a", "DEFINED_IN", "Section", "section:s", {})
    await store.merge_edge("Concept", "concept:a", "RELATED", "Concept", "concept:b", {})
    assert [n.key for n in await store.get_nodes_by_keys(["section:s", "concept:a", "x"])] \
        in (["section:s", "concept:a"], ["concept:a", "section:s"])
    eu = await store.find_nodes("Concept", {"domain": "AML", "jurisdiction": "EU"})
    assert [n.key for n in eu] == ["concept:b"]
    assert [n.key for n in await store.find_nodes("Concept", {})] == ["concept:a", "concept:b"]
    assert [n.key for n in await store.find_nodes_with_any("Concept", "labelsNorm",
                                                           ["cdd", "nothing"])] == ["concept:a"]
    hops = await store.neighbours_of(["concept:a"])
    assert {(e.rel, other.key, origin) for e, other, origin in hops} == {
        ("DEFINED_IN", "section:s", "concept:a"), ("RELATED", "concept:b", "concept:a")}
    # The edges among some nodes, alone: the one to a node outside them is left out.
    among = await store.edges_among(["concept:a", "concept:b", "x"])
    assert [(e.src_key, e.rel, e.dst_key) for e in among] == [
        ("concept:a", "RELATED", "concept:b")]
    assert await store.edges_among([]) == []
    nodes, edges = await store.dump()
    assert [n.key for n in nodes] == ["concept:a", "concept:b", "section:s"]
    assert [(e.src_key, e.rel, e.dst_key) for e in edges] == [
        ("concept:a", "DEFINED_IN", "section:s"), ("concept:a", "RELATED", "concept:b")]


async def test_deletes_leave_tombstones_for_the_change_feed(store: CypherGraphStore) -> None:
    await store.merge_node("Concept", "concept:a", {})
    await store.merge_node("Section", "section:s", {})
    await store.merge_edge("Concept", "concept:a", "DEFINED_IN", "Section", "section:s", {})
    changes = await store.changes_since(0)
    assert {n.key for n in changes.nodes} == {"concept:a", "section:s"}
    assert len(changes.edges) == 1 and changes.tombstones == []
    assert await store.delete_edge("Concept", "concept:a", "DEFINED_IN", "Section", "section:s")
    assert not await store.delete_edge("Concept", "concept:a", "DEFINED_IN", "Section",
                                       "section:s")
    assert await store.delete_node("Section", "section:s")
    assert not await store.delete_node("Section", "section:s")
    after = await store.changes_since(0)
    assert {(t.kind, t.ref) for t in after.tombstones} == {
        ("edge", "concept:a-[DEFINED_IN]->section:s"), ("node", "section:s")}
    assert {n.key for n in after.nodes} == {"concept:a"}  # tombstones are not nodes to readers
    assert await store.get_nodes_by_keys(["section:s"]) == []
    assert [n.key for n in (await store.dump())[0]] == ["concept:a"]


async def test_old_deletions_are_purged_and_readers_from_before_are_told(
        store: CypherGraphStore) -> None:
    await store.merge_node("Concept", "concept:old", {})
    await store.merge_node("Concept", "concept:new", {})
    assert await store.delete_node("Concept", "concept:old")
    await asyncio.sleep(0.01)
    cut = int((await store.changes_since(0)).tombstones[0].deleted_at) + 5
    await asyncio.sleep(0.01)
    assert await store.delete_node("Concept", "concept:new")
    assert (await store.changes_since(0)).purged_before == 0  # nothing purged yet
    assert await store.purge_tombstones(cut) == 1
    after = await store.changes_since(0)
    assert [t.ref for t in after.tombstones] == ["concept:new"]  # the newer one is kept
    assert after.purged_before == cut
    assert await store.purge_tombstones(cut - 1000) == 0  # the horizon never moves back
    assert (await store.changes_since(0)).purged_before == cut
    # The horizon record is no node, tombstone or export to any reader.
    assert after.nodes == [] and (await store.dump()) == ([], [])
    assert await store.count_nodes("Concept") == 0


async def test_property_names_in_query_text_pass_a_whitelist(store: CypherGraphStore) -> None:
    for bad in ("key) DETACH DELETE n //", "email"):
        with pytest.raises(InvalidRequest):
            await store.find_nodes("Concept", {bad: "x"})
        with pytest.raises(InvalidRequest):
            await store.append_unique("Concept", "concept:a", bad, ["x"])
    with pytest.raises(InvalidRequest):
        await store.merge_node("Concept`) DETACH DELETE n //", "k", {})
    with pytest.raises(InvalidRequest):
        await store.merge_node("Concept", "k", {}, extra_labels=["User"])
    with pytest.raises(InvalidRequest):
        await store.delete_edge("Concept", "a", "DEFINED_IN]->() DETACH DELETE n //",
                                "Section", "b")
    # Property maps are parameters, and their keys must be plain identifiers.
    with pytest.raises(InvalidRequest):
        await store.merge_node("Concept", "k", {"odd key`) DELETE n //": "v"})
    assert await store.count_nodes("Concept") == 0


async def test_schema_is_idempotent(store: CypherGraphStore) -> None:
    await store.ensure_schema()
    await store.ensure_schema()


async def test_bolt_adapter_reports_an_unreachable_server_as_dependency_down() -> None:
    from regintel.adapters.graph.bolt_store import bolt_store_from_url
    from regintel.errors import DependencyUnavailable

    bolt = bolt_store_from_url("bolt://neo4j:secret@127.0.0.1:1/regintel")
    assert bolt._database == "regintel"
    try:
        with pytest.raises(DependencyUnavailable):
            await bolt.ping()
        with pytest.raises(DependencyUnavailable):
            await bolt.get_nodes_by_keys(["concept:a"])
    finally:
        await bolt.close()


async def test_scoped_graphs_are_walled_off_from_each_other(store: CypherGraphStore) -> None:
    """A scope (a tenant's own graph) shares the server and nothing else: what is written
    through one scope is never read through the parent or another scope, changes included."""
    a, b = store.scoped("tenant-wall-a"), store.scoped("tenant-wall-b")
    await a.merge_node("Concept", "concept:private", {"prefLabel": "private term"})
    await a.merge_node("Section", "section:s", {"title": "s"})
    await a.merge_edge("Concept", "concept:private", "DEFINED_IN", "Section", "section:s", {})
    assert [n.key for n in await a.get_nodes_by_keys(["concept:private"])] == [
        "concept:private"]
    for other in (store, b):
        assert await other.get_nodes_by_keys(["concept:private"]) == []
        assert await other.find_nodes_with_any("Concept", "labelsNorm", ["private term"]) == []
        assert await other.neighbours_of(["concept:private"]) == []
        changes = await other.changes_since(0)
        assert "concept:private" not in {n.key for n in changes.nodes}
    assert (await a.changes_since(0)).edges
    with pytest.raises(InvalidRequest):
        store.scoped("../other graph")
    if isinstance(store, FalkorGraphStore):  # a scope's graph goes with the test's graph
        for scoped in (a, b):
            await scoped._query("MATCH (n) DETACH DELETE n")
