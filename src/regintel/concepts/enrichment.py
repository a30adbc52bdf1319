"""Enrichment of sparse concepts (spec §6.2), as a job on the queue.

``graph_has_useful_detail`` says whether a concept already has a definition and at least one
edge to a section or rule. When it does not, the capture handler enqueues ``concepts.enrich``;
the job looks for the concept in **public** regulatory text only — the bundled regulations and
documents a tenant marked public — links the sections that define or use it, fills a missing
definition, and links broader/related concepts. A tenant's private documents are never read:
the sources are built that way (see ``PublicPassageSource``), not filtered afterwards."""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

from regintel.concepts.capture import Enqueue, EnrichmentRequest
from regintel.concepts.changes import purge_deletions
from regintel.concepts.extractor import defined_terms
from regintel.concepts.graph import GraphClient, GraphWriteService
from regintel.concepts.guard import GraphWriteRefused
from regintel.concepts.regulations import load_bundled
from regintel.concepts.relations import ConceptText, infer_relations
from regintel.domain.concepts import CONCEPT, RULE, SECTION, norm_label
from regintel.ports.concepts import (
    ConversationContextStore,
    PublicPassage,
    PublicPassageSource,
)
from regintel.ports.graph import GraphNode, GraphStore, GraphValue
from regintel.ports.queue import JobQueue

log = logging.getLogger(__name__)

ENRICH_JOB = "concepts.enrich"
CONCEPTS_QUEUE = "concepts"
PURGE_CONTEXTS_JOB = "concepts.purge_contexts"
PURGE_TOMBSTONES_JOB = "concepts.purge_tombstones"
DETAIL_LABELS = frozenset({SECTION, RULE})
DETAIL_RELS = frozenset({"DEFINED_IN", "MENTIONED_IN"})
MAX_SECTIONS = 5


class BundledPassages:
    """Articles of the bundled GDPR and AI Act (``regintel.concepts.regulations``)."""

    def __init__(self, shared_data_dir: Path) -> None:
        self.shared_data_dir = shared_data_dir

    async def passages(self, terms: Sequence[str], *, limit: int) -> list[PublicPassage]:
        patterns = [re.compile(rf"\b{re.escape(t)}", re.I) for t in terms if len(t) > 2]
        out: list[PublicPassage] = []
        for reg in await load_bundled(self.shared_data_dir):
            for article in reg.articles:
                if any(p.search(article.text) for p in patterns):
                    out.append(PublicPassage(
                        section_key=reg.section_key(article.number), document=reg.title,
                        clause=f"Article {article.number}", title=article.title,
                        text=article.text, url=reg.article_url(article.number),
                        jurisdiction=reg.jurisdiction))
        return out[:limit]


async def graph_has_useful_detail(client: GraphClient, concept_id: str) -> bool:
    """A definition and at least one edge to a section or rule (§6.2). Missing node → False."""
    nodes = await client.get_nodes_by_ids([concept_id])
    if not nodes or not nodes[0].properties.get("definition"):
        return False
    return any(edge.rel in DETAIL_RELS and DETAIL_LABELS & set(other.labels)
               for edge, other in await client.neighbours(concept_id))


class ConceptEnricher:
    def __init__(self, client: GraphClient, writer: GraphWriteService,
                 sources: Sequence[PublicPassageSource]) -> None:
        self.client = client
        self.writer = writer
        self.sources = list(sources)

    async def has_useful_detail(self, concept_id: str) -> bool:
        return await graph_has_useful_detail(self.client, concept_id)

    async def enrich(self, concept_id: str, **_request: object) -> dict[str, int]:
        """Idempotent: re-running links nothing twice (edges are merged)."""
        nodes = await self.client.get_nodes_by_ids([concept_id])
        if not nodes:
            log.info("enrichment: %s no longer exists", concept_id)
            return {"sections": 0, "relations": 0}
        node = nodes[0]
        labels = _labels(node)
        jurisdiction = str(node.properties.get("jurisdiction") or "")
        passages: list[PublicPassage] = []
        for source in self.sources:
            passages += await source.passages(labels, limit=50)
        passages = [p for p in passages
                    if not p.jurisdiction or not jurisdiction or p.jurisdiction == jurisdiction]
        definition = str(node.properties.get("definition") or "")
        linked = 0
        wanted = {norm_label(x) for x in labels}
        for passage in sorted(passages, key=lambda p: -_count(p.text, labels)):
            if linked >= MAX_SECTIONS:
                break
            defines = next((t for t in defined_terms(passage.text)
                            if norm_label(t.term) in wanted), None)
            rel = "DEFINED_IN" if defines else "MENTIONED_IN"
            try:
                await self._section(passage)
                await self.writer.link(CONCEPT, node.key, rel, SECTION, passage.section_key,
                                       {"clause": passage.clause[:200], "source": "enrichment"})
                linked += 1
                if defines and not definition:
                    await self.writer.upsert_node(CONCEPT, node.key,
                                                  {"definition": defines.definition})
                    definition = defines.definition
            except GraphWriteRefused:
                continue  # logged by the guard; the next passage may be fine
        related = await self._relate(node, definition)
        log.info("enrichment: %s linked %d section(s), %d relation(s)", concept_id, linked,
                 related)
        return {"sections": linked, "relations": related}

    async def _section(self, passage: PublicPassage) -> None:
        props: dict[str, GraphValue] = {"document": passage.document[:300],
                                    "clause": passage.clause[:300],
                                    "title": passage.title[:300], "source": "enrichment"}
        if passage.url:
            props["url"] = passage.url
        if passage.jurisdiction:
            props["jurisdiction"] = passage.jurisdiction
        await self.writer.upsert_node(SECTION, passage.section_key, props)

    async def _relate(self, node: GraphNode, definition: str) -> int:
        p = node.properties
        peers = await self.client.store.find_nodes(
            CONCEPT, {"domain": str(p.get("domain", "")),
                      "jurisdiction": str(p.get("jurisdiction", ""))}, limit=2000)
        others = [ConceptText(n.key, str(n.properties.get("prefLabel", "")),
                              str(n.properties.get("definition", ""))) for n in peers]
        me = ConceptText(node.key, str(p.get("prefLabel", "")), definition)
        made = 0
        for rel, other in infer_relations(me, others):
            try:
                await self.writer.link(CONCEPT, node.key, rel, CONCEPT, other,
                                       {"source": "enrichment"})
                if rel == "BROADER":
                    await self.writer.link(CONCEPT, other, "NARROWER", CONCEPT, node.key,
                                           {"source": "enrichment"})
                made += 1
            except GraphWriteRefused:
                continue
        return made


def _labels(node: GraphNode) -> list[str]:
    alts = node.properties.get("altLabels")
    out = [str(node.properties.get("prefLabel", ""))]
    out += [str(a) for a in alts] if isinstance(alts, list) else []
    return [x for x in dict.fromkeys(out) if x]


def _count(text: str, labels: Sequence[str]) -> int:
    low = text.lower()
    return sum(low.count(x.lower()) for x in labels)


def queue_enqueuer(queue: JobQueue, *, tenant: str | None = None) -> Enqueue:
    """The handler's ``enqueue``: one ``concepts.enrich`` job per sparse concept. ``tenant``
    says whose graph the concept lives in (None: the shared graph), so the job enriches it
    there; it travels in the job's arguments (Postgres), never into a graph."""
    async def enqueue(request: EnrichmentRequest) -> None:
        extra = {"tenant": tenant} if tenant is not None else {}
        await queue.defer(ENRICH_JOB, concept_id=request.conceptId, domain=request.domain,
                          kind=request.kind, jurisdiction=request.jurisdiction,
                          source_urls=list(request.sourceUrls), **extra)
    return enqueue


# A factory takes the job's tenant (None: the shared graph) and returns the enricher over
# that tenant's view of the graph.
EnricherSource = ConceptEnricher | Callable[[str | None], Awaitable[ConceptEnricher]]


def register_concept_jobs(queue: JobQueue, enricher: EnricherSource, *,
                          context_store: ConversationContextStore | None = None,
                          retention_days: int = 90, graph: GraphStore | None = None,
                          tombstone_retention_days: int = 30) -> None:
    """Register ``concepts.enrich`` (and, given a context store, ``concepts.purge_contexts``;
    given the graph, ``concepts.purge_tombstones``) once per process, from
    ``Container.register_jobs``. ``enricher`` may be an async factory (of the job's tenant,
    over ``Container.concepts(tenant)``) so a synchronous ``register_jobs`` can register before the
    services — which need the PII detector — are built."""
    async def enrich(concept_id: str, tenant: str | None = None, **request: object) -> None:
        worker = enricher if isinstance(enricher, ConceptEnricher) else await enricher(tenant)
        await worker.enrich(concept_id, **request)

    queue.register(ENRICH_JOB, enrich, queue=CONCEPTS_QUEUE, retries=3)
    if context_store is not None:
        async def purge() -> None:
            gone = await context_store.purge_inactive(older_than_days=retention_days)
            log.info("purged %d inactive conversation context(s)", gone)

        queue.register(PURGE_CONTEXTS_JOB, purge, queue=CONCEPTS_QUEUE, retries=1)
    if graph is not None:
        async def purge_tombstones() -> None:
            gone = await purge_deletions(graph, older_than_days=tombstone_retention_days)
            log.info("purged %d graph tombstone(s)", gone)

        queue.register(PURGE_TOMBSTONES_JOB, purge_tombstones, queue=CONCEPTS_QUEUE,
                       retries=1)

