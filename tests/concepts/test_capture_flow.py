"""Multi-turn concept capture at service level, on a real regulation (GDPR Article 4)."""

from __future__ import annotations

import json

from regintel.adapters.graph.falkordb_store import FalkorGraphStore
from regintel.concepts.context import CONTEXT_ASPECT_FOOTER, CONTEXT_ASPECT_HEADER
from regintel.concepts.extractor import SourceText
from regintel.concepts.services import ConceptServices
from tests.concepts.conftest import SHARED, Build, Enqueued, Tenancy
from tests.concepts.turns import run_turn

GDPR_TITLE = "GDPR (Regulation (EU) 2016/679)"
PERSONAL_DATA = "concept:DATA_PROTECTION:PERSONAL_DATA:EU"


def gdpr_article(number: str) -> str:
    for line in (SHARED / "regulations" / "gdpr_articles.jsonl").read_text().splitlines():
        row = json.loads(line)
        if row["article"] == number:
            return str(row["text"])
    raise AssertionError(number)


async def test_concept_created_once_reused_saved_and_in_next_prompt(
        services: ConceptServices, graph: FalkorGraphStore, tenancy: Tenancy,
        enqueued: Enqueued) -> None:
    art4 = SourceText(gdpr_article("4").split("\n")[1], title=GDPR_TITLE)
    first = await tenancy.conversation()

    turn1 = await run_turn(services, first, "What counts as personal data under the GDPR?",
                           sources=[art4])
    assert turn1.aspect is None  # nothing in scope yet
    assert turn1.referenced == [PERSONAL_DATA]
    assert turn1.context.activeNodeIds == [PERSONAL_DATA]
    assert await graph.count_nodes("Concept") == 1
    node = (await graph.get_nodes("Concept", [PERSONAL_DATA]))[0]
    assert "DataProtectionConcept" in node.labels
    assert str(node.properties["definition"]).startswith("any information relating to")
    assert [r.conceptId for r in enqueued.requests] == [PERSONAL_DATA]  # no section yet

    turn2 = await run_turn(services, first, "And does that include IP addresses?")
    assert turn2.aspect is not None
    assert turn2.aspect.startswith(CONTEXT_ASPECT_HEADER)
    assert turn2.aspect.endswith(CONTEXT_ASPECT_FOOTER)
    assert "- personal data (EU) – any information relating to" in turn2.aspect
    assert turn2.context.activeNodeIds == [PERSONAL_DATA]  # persisted in Postgres

    # Another conversation names it in its own words: the same node, found by its label.
    other = await tenancy.conversation()
    turn3 = await run_turn(services, other, "Is hashed personal data still personal data?")
    assert turn3.referenced == [PERSONAL_DATA]
    assert await graph.count_nodes("Concept") == 1
    assert (await services.context.load(other)).activeNodeIds == [PERSONAL_DATA]
    assert len(enqueued.requests) == 1  # the sparse concept is enqueued once, not per turn


async def test_tool_payload_variants_resolve_to_one_node_and_enrich_labels(
        services: ConceptServices, graph: FalkorGraphStore) -> None:
    first = await services.handler.handle({"concepts": [{
        "domain": "TAX", "kind": "VAT", "jurisdiction": "IE",
        "prefLabel": "  Value-Added   Tax ", "altLabels": ["VAT"],
        "definition": "A general indirect tax on goods and services in Ireland."}]})
    second = await services.handler.handle(json.dumps({"concepts": [{
        "domain": "taxation", "kind": "value added tax", "jurisdiction": "ie",
        "prefLabel": "VAT", "altLabels": ["sales tax in Ireland", "vat"]}]}))
    assert first.referencedNodeIds == second.referencedNodeIds == ["concept:TAX:VAT:IE"]
    assert first.created == ["concept:TAX:VAT:IE"] and second.created == []
    node = (await graph.get_nodes("Concept", ["concept:TAX:VAT:IE"]))[0]
    assert node.properties["prefLabel"] == "Value-Added Tax"
    assert node.properties["altLabels"] == ["VAT", "sales tax in Ireland"]
    assert "TaxConcept" in node.labels
    assert await graph.count_nodes("Concept") == 1


async def test_active_nodes_are_pruned_by_recency(build: Build, tenancy: Tenancy) -> None:
    services = build(max_active_nodes=2)
    identity = await tenancy.conversation()
    ids = []
    for kind in ("A_ONE", "B_TWO", "C_THREE"):
        turn = await run_turn(services, identity, "q", payload={"concepts": [{
            "domain": "AML", "kind": kind, "jurisdiction": "ADGM",
            "prefLabel": kind.replace("_", " ").lower()}]})
        ids += turn.referenced
    ctx = await services.context.load(identity)
    assert ctx.activeNodeIds == ids[1:]  # the oldest fell off
    again = await run_turn(services, identity, "q", payload={"concepts": [{
        "domain": "AML", "kind": "B_TWO", "jurisdiction": "ADGM", "prefLabel": "b two"}]})
    assert again.context.activeNodeIds == [ids[2], ids[1]]  # re-referenced = most recent


async def test_seeded_concepts_are_matched_offline_and_not_re_enriched(
        services: ConceptServices, tenancy: Tenancy, enqueued: Enqueued) -> None:
    await services.seeder.seed(SHARED, only=["gdpr"], mentions=False)
    identity = await tenancy.conversation()
    turn = await run_turn(services, identity,
                          "Does pseudonymisation take data out of the GDPR's scope?")
    assert turn.referenced == ["concept:DATA_PROTECTION:PSEUDONYMISATION:EU"]
    assert enqueued.requests == []  # seeded: a definition and its Article 4 section
    nxt = await run_turn(services, identity, "And what about profiling?")
    assert nxt.aspect is not None and "- pseudonymisation (EU) – the processing of" in nxt.aspect
    assert nxt.context.activeNodeIds == ["concept:DATA_PROTECTION:PSEUDONYMISATION:EU",
                                         "concept:DATA_PROTECTION:PROFILING:EU"]
