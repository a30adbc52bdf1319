"""The concept-graph services, built together (``Container.concepts()`` calls this)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from regintel.concepts.capture import CaptureResult, ConceptCaptureHandler, Enqueue
from regintel.concepts.changes import GraphChangeDetector
from regintel.concepts.context import ConversationContextService, conversation_context_aspect
from regintel.concepts.enrichment import BundledPassages, ConceptEnricher, queue_enqueuer
from regintel.concepts.extractor import ConceptExtractor, SourceText
from regintel.concepts.graph import GraphClient, GraphWriteService
from regintel.concepts.guard import IngressGuard, PiiScanner, build_ingress_guard
from regintel.concepts.resolver import CanonicalConceptResolver
from regintel.concepts.seed import SeedLoader
from regintel.domain.concepts import ConversationContext, ConversationIdentity
from regintel.ports.concepts import ConversationContextStore, PublicPassageSource
from regintel.ports.graph import GraphStore
from regintel.ports.queue import JobQueue
from regintel.settings import ConceptSettings

VOCABULARY_TTL_S = 60.0


@dataclass(frozen=True)
class TurnStart:
    context: ConversationContext
    aspect: str | None


@dataclass(frozen=True)
class TurnConcepts:
    referenced_nodes: list[str]
    context: ConversationContext
    capture: CaptureResult


@dataclass
class ConceptServices:
    client: GraphClient
    writer: GraphWriteService
    guard: IngressGuard
    resolver: CanonicalConceptResolver
    handler: ConceptCaptureHandler
    enricher: ConceptEnricher
    context: ConversationContextService
    seeder: SeedLoader
    changes: GraphChangeDetector
    max_concepts_per_turn: int = 5
    _extractor: ConceptExtractor | None = field(default=None, repr=False)
    _extractor_at: float = field(default=0.0, repr=False)
    _extractor_generation: int = field(default=-1, repr=False)

    async def extractor(self) -> ConceptExtractor:
        """The offline extractor over the graph's current vocabulary (rebuilt at most once a
        minute, and at once after this process adds a concept or label). When the graph
        cannot be read, the last vocabulary — or none, defined terms only — is used."""
        now = time.monotonic()
        generation = self.resolver.generation + self.seeder.resolver.generation
        if self._extractor is None or now - self._extractor_at > VOCABULARY_TTL_S or \
                generation != self._extractor_generation:
            try:
                nodes = await self.client.concepts()
            except Exception:  # capture is additive: an empty vocabulary still finds terms
                nodes = []
                if self._extractor is not None:
                    return self._extractor
            self._extractor = ConceptExtractor.from_nodes(
                nodes, max_concepts=self.max_concepts_per_turn)
            self._extractor_at, self._extractor_generation = now, generation
        return self._extractor

    async def context_aspect(self, node_ids: Sequence[str]) -> str | None:
        return await conversation_context_aspect(node_ids, self.client)

    async def begin_turn(self, identity: ConversationIdentity) -> TurnStart:
        """Before the answer: the stored context (empty on failure) and the prompt paragraph
        (None when there is nothing in scope or the graph cannot resolve it)."""
        context = await self.context.load(identity)
        return TurnStart(context, await self.context_aspect(context.activeNodeIds))

    async def finish_turn(self, identity: ConversationIdentity, start: TurnStart, *,
                          payload: object | None = None, question: str = "", answer: str = "",
                          sources: Sequence[SourceText] = (),
                          extra_node_ids: Sequence[str] = ()) -> TurnConcepts:
        """After the answer: capture (the tool payload, or the offline extractor over the
        turn's text when there is none), then save the context. Never raises for concept or
        context failures; ``extra_node_ids`` are other graph nodes the answer relied on."""
        if payload is None:
            payload = (await self.extractor()).extract(question, answer, sources)
        result = await self.handler.handle(payload, tenant_id=identity.tenant_id,
                                           conversation_id=identity.conversation_id)
        referenced = list(dict.fromkeys([*result.referencedNodeIds, *extra_node_ids]))
        context = await self.context.record_turn(identity, start.context, referenced)
        return TurnConcepts(referenced, context, result)


def build_concept_services(store: GraphStore, *, pii: PiiScanner | None,
                           context_store: ConversationContextStore,
                           settings: ConceptSettings, shared_data_dir: Path,
                           public_sources: Sequence[PublicPassageSource] = (),
                           queue: JobQueue | None = None,
                           enqueue: Enqueue | None = None,
                           tenant: str | None = None) -> ConceptServices:
    """``pii``: the chat's input guardrail (``await container.guard()``); ``enqueue``
    overrides the queue (tests inject failures); with neither, sparse concepts are only
    logged. ``tenant``: whose view of the graph ``store`` is (``tenant_graph``), so its
    enrichment jobs run on the same view; None for the shared graph."""
    client = GraphClient(store)
    guard = build_ingress_guard(pii)
    writer = GraphWriteService(store, guard)
    resolver = CanonicalConceptResolver(client, writer)
    enricher = ConceptEnricher(client, writer,
                               [BundledPassages(shared_data_dir), *public_sources])
    if enqueue is None:
        enqueue = queue_enqueuer(queue, tenant=tenant) \
            if queue is not None and settings.enrichment \
            else _no_enqueue
    # A tool payload is taken up to 10 concepts (the spec's usual 1–5, with headroom); the
    # offline extractor proposes at most ``max_concepts_per_turn``.
    handler = ConceptCaptureHandler(resolver, enricher.has_useful_detail, enqueue,
                                    max_concepts=max(settings.max_concepts_per_turn, 10))
    return ConceptServices(
        client=client, writer=writer, guard=guard, resolver=resolver, handler=handler,
        enricher=enricher,
        context=ConversationContextService(context_store,
                                           max_active_nodes=settings.max_active_nodes),
        seeder=SeedLoader(writer, CanonicalConceptResolver(client, writer, source="seed")),
        changes=GraphChangeDetector(store, poll_interval_s=settings.change_poll_interval_s),
        max_concepts_per_turn=settings.max_concepts_per_turn)


async def _no_enqueue(_request: object) -> None:
    return None
