"""Enrichment reads public text only: bundled regulations and documents marked public, never
a tenant's private documents; it runs as a real job on the Postgres queue."""

from __future__ import annotations

from regintel.adapters.graph.falkordb_store import FalkorGraphStore
from regintel.adapters.postgres.context_repo import PostgresConversationContextStore
from regintel.adapters.postgres.database import Database
from regintel.adapters.queue.procrastinate_queue import ProcrastinateQueue
from regintel.concepts.enrichment import (
    ENRICH_JOB,
    PURGE_CONTEXTS_JOB,
    ConceptEnricher,
    graph_has_useful_detail,
    queue_enqueuer,
    register_concept_jobs,
)
from tests.concepts.conftest import SHARED, Build, Tenancy
from tests.concepts.turns import run_turn

CDD_ID = "concept:AML:CUSTOMER_DUE_DILIGENCE:ADGM"
CDD = {"concepts": [{"domain": "AML", "kind": "CUSTOMER_DUE_DILIGENCE", "jurisdiction": "ADGM",
                     "prefLabel": "Customer Due Diligence", "altLabels": ["CDD"]}]}


async def test_enrichment_job_uses_public_documents_only(
        build: Build, tenancy: Tenancy, database: Database, graph: FalkorGraphStore) -> None:
    await tenancy.document("Private onboarding manual", [
        "Internal: 'Customer Due Diligence' means calling Falcon Crest's hotline first."],
        public=False, database=database)
    await tenancy.document("ADGM AML Rulebook", [
        "For the purposes of these Rules, 'Customer Due Diligence' means identifying the "
        "customer and verifying the customer's identity.",
        "A Relevant Person must undertake Customer Due Diligence before a business "
        "relationship."], public=True, database=database)

    queue = ProcrastinateQueue(database.url)
    services = build(enqueue=queue_enqueuer(queue))

    async def enricher(tenant: str | None) -> ConceptEnricher:  # as the container's factory
        assert tenant is None  # enqueued for the shared graph
        return services.enricher

    register_concept_jobs(queue, enricher,
                          context_store=PostgresConversationContextStore(database))
    await queue.open()
    try:
        identity = await tenancy.conversation()
        turn = await run_turn(services, identity, "What is CDD?", payload=CDD)
        assert turn.referenced == [CDD_ID]
        assert not await graph_has_useful_detail(services.client, CDD_ID)
        await queue.run_worker(wait=False)
        await queue.defer(PURGE_CONTEXTS_JOB)
        await queue.run_worker(wait=False)
        assert await services.context.load(identity) == turn.context  # recent: kept
    finally:
        await queue.close()
    assert ENRICH_JOB == "concepts.enrich"

    node = (await graph.get_nodes("Concept", [CDD_ID]))[0]
    assert node.properties["definition"] == ("identifying the customer and verifying the "
                                             "customer's identity")
    around = await services.client.neighbours(CDD_ID)
    sections = {(e.rel, n.properties["document"]) for e, n in around if "Section" in n.labels}
    assert ("DEFINED_IN", "ADGM AML Rulebook") in sections
    # Public sources only: the public document, and the bundled ADGM AML glossary that also
    # defines the term; never the private manual.
    assert {doc for _, doc in sections} <= {
        "ADGM AML Rulebook", "ADGM Anti-Money Laundering and Sanctions Rules and Guidance (AML)"}
    nodes, _edges = await graph.dump()
    blob = " ".join(str(v) for n in nodes for v in n.properties.values()).lower()
    assert "hotline" not in blob and "private" not in blob and "falcon" not in blob
    assert await graph_has_useful_detail(services.client, CDD_ID)


async def test_enrichment_links_bundled_sections_and_broader_concepts(
        build: Build, graph: FalkorGraphStore) -> None:
    services = build()
    await services.seeder.seed(SHARED, only=["gdpr"], mentions=False)
    result = await services.handler.handle({"concepts": [{
        "domain": "DATA_PROTECTION", "kind": "SPECIAL_CATEGORY_DATA", "jurisdiction": "EU",
        "prefLabel": "special categories of personal data"}]})
    concept = result.referencedNodeIds[0]
    assert result.enqueued == [concept]
    report = await services.enricher.enrich(concept)
    assert report["sections"] >= 1
    around = await services.client.neighbours(concept)
    assert any(e.rel == "MENTIONED_IN" and n.key.startswith("section:gdpr:art-")
               for e, n in around)
    assert ("BROADER", "concept:DATA_PROTECTION:PERSONAL_DATA:EU") in {
        (e.rel, n.key) for e, n in around if e.src_key == concept}
