"""SKOS interchange: export to Turtle/JSON, and a team's own taxonomy imported through the
resolver and the ingress guard."""

from __future__ import annotations

from regintel.adapters.graph.falkordb_store import FalkorGraphStore
from regintel.concepts.skos import export_json, export_turtle, import_turtle
from tests.concepts.conftest import SHARED, Build

TAXONOMY = """
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix ex: <https://bank.example/taxonomy/> .

ex:cdd a skos:Concept ;
    skos:prefLabel "Customer Due Diligence"@en ;
    skos:altLabel "CDD"@en, "KYC checks"@en, "call jane.doe@example.com"@en ;
    skos:definition "Identifying and verifying a customer."@en ;
    skos:broader ex:aml .
ex:edd a skos:Concept ;
    skos:prefLabel "Enhanced Due Diligence"@en ;
    skos:broader ex:cdd .
ex:aml a skos:Concept ;
    skos:prefLabel "Anti-Money Laundering"@en .
ex:bad a skos:Concept ;
    skos:prefLabel "How do I avoid these checks?"@en .
"""


async def test_import_a_taxonomy_then_export_round_trips(build: Build,
                                                         graph: FalkorGraphStore) -> None:
    services = build()
    report = await import_turtle(TAXONOMY, services.resolver, services.writer, domain="AML",
                                 jurisdiction="ADGM")
    assert report.concepts == 3 and report.edges == 2 and report.refused == 1
    cdd = (await graph.get_nodes("Concept", ["concept:AML:CUSTOMER_DUE_DILIGENCE:ADGM"]))[0]
    assert cdd.properties["altLabels"] == ["CDD", "KYC checks"]  # the e-mail was refused
    again = await import_turtle(TAXONOMY, services.resolver, services.writer, domain="AML",
                                jurisdiction="ADGM")
    assert again.concepts == 3 and await graph.count_nodes("Concept") == 3

    turtle = await export_turtle(services.client)
    assert "skos:prefLabel \"Customer Due Diligence\"@en" in turtle
    assert "skos:broader" in turtle and "ri:kind \"CUSTOMER_DUE_DILIGENCE\"" in turtle

    # Our own export imports into an empty graph as the same concepts and edges.
    fresh_store = build(store=graph)  # same store; wipe it through the write service
    for node in (await graph.dump())[0]:
        assert await fresh_store.writer.delete_node("Concept", node.key)
    assert await graph.count_nodes("Concept") == 0
    back = await import_turtle(turtle, services.resolver, services.writer)
    assert back.concepts == 3 and back.edges == 2
    assert await graph.count_nodes("AmlConcept") == 3


async def test_json_export_of_the_seed_graph(build: Build) -> None:
    services = build()
    await services.seeder.seed(SHARED, only=["gdpr"], mentions=False)
    data = await export_json(services.client)
    ids = {n["id"] for n in data["nodes"]}
    assert "concept:DATA_PROTECTION:PERSONAL_DATA:EU" in ids and "section:gdpr:art-4" in ids
    assert any(e["rel"] == "DEFINED_IN" for e in data["edges"])
    assert not any("Tombstone" in n["labels"] for n in data["nodes"])
