"""Composition root: the only module that chooses and builds adapters from settings.

``Container.open`` starts (or attaches to) the embedded stores when no URL is configured, checks
that an external Postgres has pgvector, and builds the database, graph and queue clients once.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections import OrderedDict
from collections.abc import Awaitable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal, assert_never
from uuid import UUID

import httpx
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from regintel import tracing
from regintel.adapters.embeddings.query_cache import QueryCachingEmbedder
from regintel.adapters.files.local import LocalFileStore
from regintel.adapters.llm.machine_speed import Estimate
from regintel.adapters.parsers import AutoParser
from regintel.adapters.postgres.change_reports_repo import PostgresChangeReportStore
from regintel.adapters.postgres.chunk_index import PostgresChunkIndex
from regintel.adapters.postgres.conversations_repo import PostgresConversationStore
from regintel.adapters.postgres.database import Database
from regintel.adapters.postgres.documents_repo import PostgresDocumentStore
from regintel.adapters.postgres.faq_repo import PostgresFaqStore
from regintel.adapters.postgres.obligations_repo import PostgresObligationStore
from regintel.adapters.postgres.ontology_repo import PostgresOntologyStore
from regintel.adapters.postgres.reviews_repo import PostgresReviewStore
from regintel.adapters.postgres.unit_vector_repo import PostgresUnitVectorStore
from regintel.adapters.queue.procrastinate_queue import ProcrastinateQueue
from regintel.adapters.websearch.tavily import TavilySearch
from regintel.builders import (
    build_embedder,
    build_graph,
    build_llm,
    build_local_llm,
    default_engine,
    local_estimate,
    measure_local,
    offered_engines,
)
from regintel.changes.impacting import ImpactService, PairImpacts
from regintel.changes.versions import CHANGES_JOB, VersionChanges
from regintel.chat.auditing import OfflineAuditor
from regintel.chat.deps import ChatLimits, Guard, TurnDeps
from regintel.chat.engine import ChatEngine
from regintel.chat.llm.engine import LlmEngine
from regintel.chat.llm.routing import LlmRouter, RouteName
from regintel.chat.offline.answer_sentences import PREPARE_ANSWERS_JOB, AnswerPreparation
from regintel.chat.offline.engine import OfflineEngine
from regintel.chat.offline.ranking import Kept
from regintel.chat.service import ChatService
from regintel.concepts.services import ConceptServices
from regintel.domain.chat import EngineChoice, OfferedEngine
from regintel.domain.documents import DocStatus
from regintel.errors import EngineNotOffered, NotFound, RegintelError
from regintel.guardrails.pipeline import build_guard
from regintel.ingestion.reindex import Reindexer
from regintel.ingestion.service import (
    FOLLOW_UP_PRIORITY,
    FOLLOW_UP_QUEUE,
    IngestionService,
)
from regintel.obligations.auditor import MatrixAuditor
from regintel.obligations.registers import REGISTER_JOB, Registers
from regintel.obligations.reviewing import ReviewService
from regintel.ontology.service import OntologyService
from regintel.ports.conversations import ConversationStore
from regintel.ports.embedder import Embedder
from regintel.ports.graph import GraphStore
from regintel.ports.library import ChunkIndex, DocumentStore
from regintel.ports.llm import ChatModel
from regintel.ports.queue import JobQueue
from regintel.ports.reviews import ReviewStore
from regintel.ports.websearch import WebSearch
from regintel.retrieval.hybrid import HybridRetriever
from regintel.retrieval.unit_vectors import UnitVectors
from regintel.runtime.llama_server import LocalModelLease
from regintel.runtime.stores import EmbeddedStores
from regintel.settings import Settings

log = logging.getLogger(__name__)

StoreStatus = Literal["ok", "down"]
MAX_TENANT_VIEWS = 256  # tenants whose concept services (and vocabulary) stay built


# Turns at once on the offline engine: one per core. On the GEN rulebook with 20 users, 2, 4
# and 8 turns at once on 2 cores gave the same throughput (299, 291, 282 turns in 60 s) and a
# first event at p95 after 428, 513 and 679 ms (``regintel bench load``).
OFFLINE_CONCURRENT_TURNS = os.cpu_count() or 2


@dataclass
class Container:
    settings: Settings
    database: Database
    graph: GraphStore
    queue: JobQueue
    database_url: str
    embedded: EmbeddedStores | None = None
    _closed: bool = field(default=False, repr=False)
    _embedder: Embedder | None = field(default=None, repr=False)
    _ingestion: IngestionService | None = field(default=None, repr=False)
    _chat: ChatService | None = field(default=None, repr=False)
    _chat_pool: AsyncConnectionPool[Any] | None = field(default=None, repr=False)
    _guard: Guard | None = field(default=None, repr=False)
    _concepts: ConceptServices | None = field(default=None, repr=False)
    # Each tenant's view of the concept graph, most recently used last (bounded).
    _tenant_concepts: OrderedDict[UUID, ConceptServices] = field(
        default_factory=OrderedDict, repr=False)
    # The model engines' routes: the default one's built by chat_with, another engine's on
    # the first turn of a conversation that chose it.
    _routers: dict[EngineChoice, LlmRouter] = field(default_factory=dict, repr=False)
    _offered: list[OfferedEngine] | None = field(default=None, repr=False)
    _local_estimate: Estimate | None = field(default=None, repr=False)
    _llm_clients: list[httpx.AsyncClient] = field(default_factory=list, repr=False)
    local_model: LocalModelLease | None = field(default=None, repr=False)
    _tenant_keys: dict[str, str] = field(default_factory=dict, repr=False)
    _locks: dict[str, asyncio.Lock] = field(default_factory=dict, repr=False)
    # The audits' unit vectors, kept between audits (retrieval.unit_vectors).
    _unit_vectors: UnitVectors | None = field(default=None, repr=False)
    # What a review reads of each pair of versions, kept between reviews (changes.impacting).
    _pair_impacts: PairImpacts = field(default_factory=PairImpacts, repr=False)
    _web: TavilySearch | None = field(default=None, repr=False)
    _jobs_registered: bool = field(default=False, repr=False)
    _turn_gate: asyncio.Semaphore | None = field(default=None, repr=False)

    @property
    def turn_gate(self) -> asyncio.Semaphore | None:
        """The chat turns this process works on at once (``api.concurrent_turns``); None:
        no limit."""
        limit = self.settings.api.concurrent_turns
        if limit is None and self.settings.llm.configured:
            return None
        if self._turn_gate is None:
            self._turn_gate = asyncio.Semaphore(limit or OFFLINE_CONCURRENT_TURNS)
        return self._turn_gate

    @property
    def unit_vectors(self) -> UnitVectors:
        """The audits' unit vectors: in this process, and in Postgres for the next one."""
        if self._unit_vectors is None:
            self._unit_vectors = UnitVectors(store=PostgresUnitVectorStore(self.database))
        return self._unit_vectors

    def drop_unit_vectors_in_memory(self) -> None:
        """As a restarted process: the vectors read again from the database (bench chat)."""
        self._unit_vectors = None

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = build_embedder(self.settings)
        if not isinstance(self._embedder, QueryCachingEmbedder):
            self._embedder = QueryCachingEmbedder(self._embedder)
        return self._embedder

    @property
    def documents(self) -> DocumentStore:
        return PostgresDocumentStore(self.database)

    @property
    def chunk_index(self) -> ChunkIndex:
        r = self.settings.retrieval
        return PostgresChunkIndex(self.database, bm25_k1=r.bm25_k1, bm25_b=r.bm25_b,
                                  hnsw_ef_search=r.hnsw_ef_search)

    @property
    def ingestion(self) -> IngestionService:
        """Built once so its job handlers are registered on the queue exactly once."""
        if self._ingestion is None:
            self._ingestion = IngestionService(
                documents=self.documents, files=LocalFileStore(self.settings.files_dir),
                parser=AutoParser(), embedder=self.embedder, queue=self.queue,
                max_bytes=self.settings.upload.max_bytes,
                follow_ups=((PREPARE_ANSWERS_JOB,) if self.settings.upload.prepare_answers
                            else ()) + (REGISTER_JOB, CHANGES_JOB))
            self._ingestion.register_jobs()
            self.queue.register(PREPARE_ANSWERS_JOB, self._prepare_for_answers,
                                queue=FOLLOW_UP_QUEUE, priority=FOLLOW_UP_PRIORITY, retries=1)
            self.queue.register(REGISTER_JOB, self._build_register,
                                queue=FOLLOW_UP_QUEUE, priority=FOLLOW_UP_PRIORITY, retries=1)
            self.queue.register(CHANGES_JOB, self._prepare_changes,
                                queue=FOLLOW_UP_QUEUE, priority=FOLLOW_UP_PRIORITY, retries=1)
        return self._ingestion

    @property
    def version_changes(self) -> VersionChanges:
        """Change reports of two versions: prepared after ingestion, or made on first read."""
        return VersionChanges(documents=self.documents, index=self.chunk_index,
                              store=PostgresChangeReportStore(self.database))

    @property
    def impact(self) -> ImpactService:
        """What a new version touches: obligations, review decisions, project items."""
        return ImpactService(documents=self.documents, index=self.chunk_index,
                             changes=self.version_changes,
                             registers=self.registers, reviews=self.reviews,
                             ontology=PostgresOntologyStore(self.database),
                             settled=self._pair_impacts)

    async def _prepare_changes(self, tenant_id: str, document_id: str) -> None:
        await self.version_changes.run_job(tenant_id, document_id)

    @property
    def registers(self) -> Registers:
        """Documents' obligation registers: built after ingestion, or on first use."""
        return Registers(documents=self.documents, index=self.chunk_index,
                         store=PostgresObligationStore(self.database))

    async def _build_register(self, tenant_id: str, document_id: str) -> None:
        """The ingestion follow-up: a document's obligation register, and (upload.
        prepare_audits) what an audit reads of it embedded - a regulation's obligations, a
        policy's clauses - so that a first audit takes seconds."""
        await self.registers.run_job(tenant_id, document_id)
        if not self.settings.upload.prepare_audits:
            return
        try:
            document = await self.documents.get(UUID(tenant_id), UUID(document_id))
        except NotFound:
            return  # deleted since it was ingested
        if document.status is DocStatus.READY:
            await self.matrix_auditor().prepare(UUID(tenant_id), document)

    def matrix_auditor(self, embedder: Embedder | None = None) -> MatrixAuditor:
        """The coverage-matrix audit over the documents' obligation registers."""
        return MatrixAuditor(registers=self.registers, index=self.chunk_index,
                             embedder=embedder or self.embedder, memo=self.unit_vectors,
                             retriever=self.retriever)

    async def _prepare_for_answers(self, tenant_id: str, document_id: str) -> None:
        await AnswerPreparation(documents=self.documents, index=self.chunk_index,
                                embedder=self.embedder,
                                memo=self.unit_vectors).run_job(tenant_id, document_id)

    @classmethod
    async def open(cls, settings: Settings, *, embedder: Embedder | None = None) -> Container:
        """``embedder`` lets a caller share one already-loaded model (tests, benchmarks)."""
        tracing.configure(settings.tracing)  # before any run: off unless asked for
        embedded: EmbeddedStores | None = None
        if settings.database_url is None or settings.graph_url is None:
            embedded = EmbeddedStores(
                settings.data_dir,
                postgres=settings.database_url is None,
                graph=settings.graph_url is None,
                pg_start_timeout_s=settings.database.embedded_start_timeout_s,
                graph_appendfsync=settings.graph.appendfsync,
            )
        try:
            endpoints = await asyncio.to_thread(embedded.open) if embedded else None
            if settings.database_url is not None:
                database_url = settings.database_url.get_secret_value()
            else:
                assert endpoints is not None and endpoints.postgres is not None
                database_url = endpoints.postgres.url()
            database = Database(database_url, pool_size=settings.database.pool_size,
                                connect_timeout_s=settings.database.connect_timeout_s)
            await database.ping()
            await database.ensure_pgvector()
            graph = build_graph(settings, endpoints.graph_socket if endpoints else None)
            queue = ProcrastinateQueue(database.url, heartbeat_s=settings.queue.heartbeat_s,
                                       stalled_after_s=settings.queue.stalled_after_s,
                                       recover_every_s=settings.queue.recover_every_s)
            await queue.open()
        except BaseException:
            if embedded is not None:
                await asyncio.to_thread(embedded.close)
            raise
        return cls(settings=settings, database=database, graph=graph, queue=queue,
                   database_url=database.url, embedded=embedded, _embedder=embedder)

    @property
    def retriever(self) -> HybridRetriever:
        r = self.settings.retrieval
        return HybridRetriever(self.chunk_index, self.embedder, candidates=r.candidates,
                               max_scope_documents=r.max_scope_documents)

    @property
    def reindexer(self) -> Reindexer:
        return Reindexer(self.documents, self.chunk_index, self.embedder,
                         after=self.ingestion.queue_follow_ups)

    @property
    def conversations(self) -> ConversationStore:
        return PostgresConversationStore(self.database)

    @property
    def reviews(self) -> ReviewStore:
        """The officer's review decisions on audits (issue 47)."""
        return PostgresReviewStore(self.database)

    @property
    def review(self) -> ReviewService:
        """Audits read back with the decisions in force, and new decisions checked."""
        return ReviewService(conversations=self.conversations, documents=self.documents,
                             chunks=self.chunk_index, reviews=self.reviews,
                             versions=self.impact)

    @property
    def faq(self) -> PostgresFaqStore:
        return PostgresFaqStore(self.database, self.embedder)

    @property
    def projects(self) -> OntologyService:
        """Compliance projects: services, ``.loader`` for context, ``.tools(...)`` for details."""
        return OntologyService(PostgresOntologyStore(self.database))

    async def concepts(self, tenant_id: UUID | None = None) -> ConceptServices:
        """The concept-graph services: capture handler, resolver, context store and aspect,
        enrichment, seed loader, change detector. Without a tenant, over the shared graph of
        public knowledge (seeding, SKOS import and export: an operator's work); with one, over
        that tenant's view (``tenant_graph``): the shared graph read through, and every
        capture of its chats written to its own graph, which no other tenant reads."""
        if self._concepts is None:
            from regintel.concepts.tenant_graph import clear_private_from_shared

            await self.graph.ensure_schema()
            await clear_private_from_shared(self.graph)
            self._concepts = self._concept_services(self.graph, None, await self.guard())
            self.register_jobs()  # its enrichment jobs must be known before one is deferred
        return self._concepts if tenant_id is None else self.tenant_concepts(tenant_id)

    def tenant_concepts(self, tenant_id: UUID) -> ConceptServices:
        """A tenant's concept services (``concepts(tenant_id)``; the shared ones must be built
        first: they check the shared graph and hold the PII detector the guard uses)."""
        from regintel.concepts.tenant_graph import TenantGraphStore, tenant_scope

        assert self._concepts is not None, "build the shared concept services first"
        found = self._tenant_concepts.get(tenant_id)
        if found is None:
            scope = tenant_scope(tenant_id)
            store = TenantGraphStore(self.graph, self.graph.scoped(scope))
            found = self._concept_services(store, str(tenant_id), self._guard)
            if len(self._tenant_concepts) >= MAX_TENANT_VIEWS:
                self._tenant_concepts.popitem(last=False)
            self._tenant_concepts[tenant_id] = found
        self._tenant_concepts.move_to_end(tenant_id)
        return found

    def _concept_services(self, store: GraphStore, tenant: str | None,
                          guard: Guard | None) -> ConceptServices:
        from regintel.adapters.postgres.context_repo import PostgresConversationContextStore
        from regintel.adapters.postgres.public_passages import PostgresPublicPassages
        from regintel.concepts.services import build_concept_services

        return build_concept_services(
            store, pii=guard, context_store=PostgresConversationContextStore(self.database),
            settings=self.settings.concepts, shared_data_dir=self.settings.demo_data_dir,
            public_sources=[PostgresPublicPassages(self.database)], queue=self.queue,
            tenant=tenant)

    async def guard(self) -> Guard:
        """The guardrails, built once (loading the PII analyser takes about a second); the
        first concurrent callers wait for the one build rather than each starting their own."""
        async with self._build_lock("guard"):
            if self._guard is None:
                guard: Guard = await asyncio.to_thread(build_guard, self.embedder)
                self._guard = guard
        return self._guard

    def _build_lock(self, name: str) -> asyncio.Lock:
        return self._locks.setdefault(name, asyncio.Lock())

    @property
    def default_engine(self) -> EngineChoice:
        self.engines()
        return default_engine(self.settings.llm, self._local_estimate)

    def engines(self) -> list[OfferedEngine]:
        """The engines this deployment offers its conversations (looked up once: whether a
        local model is installed, and how fast it runs here, is read from the disk)."""
        if self._offered is None:
            self._local_estimate = local_estimate(self.settings)
            self._offered = offered_engines(self.settings)
        return self._offered

    async def measure_local_model(self) -> None:
        """On a deployment that answers with the local model (``provider=local``) and has
        not timed it on this machine yet: time it, so the selector says what a turn costs
        here and a slow machine keeps the offline engine as the default. Never fails the
        start: a model that cannot be timed is offered as before."""
        if not self.settings.llm.is_local or local_estimate(self.settings) is not None:
            return
        try:
            speed = await measure_local(self.settings)
        except Exception:
            log.exception("the local model could not be timed on this machine")
            return
        self._offered = None  # offered again with the estimate
        log.info("local model %s on this machine: prefill %.1f tokens/s, generation %.1f "
                 "tokens/s", speed.model, speed.prefill_tokens_per_s,
                 speed.generation_tokens_per_s)

    def check_engine(self, choice: EngineChoice | None) -> None:
        """Refuses an engine this deployment does not offer (None: the default, always)."""
        offered = [e.id.value for e in self.engines()]
        if choice is not None and choice.value not in offered:
            raise EngineNotOffered(f"this deployment does not offer the {choice.value} engine",
                                   hint=f"choose one of: {', '.join(offered)}")

    async def review_model(self, tenant_id: UUID,
                           engine: EngineChoice | None) -> tuple[ChatModel, float] | None:
        """The model a conversation's engine audits with, and its time limit per call, for
        proposing statuses on an audit's review queue; None for the offline engine or a model
        that cannot be set up."""
        choice = engine if engine is not None and any(
            e.id is engine for e in self.engines()) else self.default_engine
        router = await self._router(choice)
        if router is None:
            return None
        routes = router.for_tenant(str(tenant_id), self._tenant_keys.get(str(tenant_id), ""))
        llm = self.settings.llm
        timeout = llm.local.timeout_s if choice is EngineChoice.LOCAL else llm.audit_timeout_s
        return routes[RouteName.AUDIT].model, float(timeout)

    async def _router(self, choice: EngineChoice) -> LlmRouter | None:
        """A model engine's routes, built on its first use; None for the offline engine, or
        when they cannot be built (the turn then runs offline and says so)."""
        if choice is EngineChoice.OFFLINE:
            return None
        if (built := self._routers.get(choice)) is not None:
            return built
        async with self._build_lock(f"llm:{choice.value}"):
            if choice not in self._routers:
                try:
                    self._routers[choice] = await self._build_router(choice)
                except Exception:  # a model that cannot be set up never breaks chat
                    log.exception("the %s engine is unavailable; the turn runs offline",
                                  choice.value)
                    return None
        return self._routers[choice]

    async def _build_router(self, choice: EngineChoice) -> LlmRouter:
        match choice:
            case EngineChoice.LOCAL:
                router, clients, self.local_model = await asyncio.to_thread(
                    build_local_llm, self.settings)
            case EngineChoice.CLOUD:
                router, clients = build_llm(self.settings.llm, (await self.guard()).find_pii)
                for slug in self.settings.llm.tenant_action_models:
                    # Overrides name tenants by slug; turns know their tenant by id.
                    self._tenant_keys[str(await self.documents.ensure_tenant(slug))] = slug
            case EngineChoice.OFFLINE:
                raise AssertionError("the offline engine has no routes")
            case _:
                assert_never(choice)
        self._llm_clients.extend(clients)
        return router

    async def turn_deps(self, guard: Guard, tenant_id: UUID, user_id: UUID | None,
                        conversation_id: UUID, engine: EngineChoice | None = None) -> TurnDeps:
        """Everything one chat turn runs with, on the conversation's engine (``engine``; None
        or one no longer offered: the deployment's default)."""
        r = self.settings.retrieval
        limits = ChatLimits(high_threshold=r.high_threshold,
                            medium_threshold=r.medium_threshold,
                            adaptive_threshold=r.adaptive_threshold,
                            max_documents=r.max_scope_documents)
        retriever, index, embedder = self.retriever, self.chunk_index, self.embedder
        offline = OfflineEngine(embedder, Kept(self.unit_vectors, tenant_id))
        chosen: ChatEngine = offline
        choice = self.default_engine
        if engine is not None and any(e.id is engine for e in self.engines()):
            choice = engine
        router = await self._router(choice)
        if router is not None:  # a fresh engine per turn: it records the turn's spending
            routes = router.for_tenant(str(tenant_id), self._tenant_keys.get(str(tenant_id), ""))
            llm, local = self.settings.llm, choice is EngineChoice.LOCAL
            chosen = LlmEngine(routes, offline,
                               timeout_s=llm.local.timeout_s if local else llm.timeout_s,
                               audit_timeout_s=llm.audit_timeout_s,
                               model_intent=not local or llm.local.model_intent,
                               model_tone=not local or llm.local.model_tone,
                               label="local model" if local else "model")
        deps = TurnDeps(tenant_id=tenant_id, user_id=user_id, conversation_id=conversation_id,
                        documents=self.documents, conversations=self.conversations,
                        retriever=retriever, index=index, embedder=embedder,
                        engine=chosen, guard=guard, web=self.web_search,
                        projects=self.projects,
                        concepts=None if self._concepts is None
                        else self.tenant_concepts(tenant_id),
                        auditor=OfflineAuditor(self.matrix_auditor(embedder)),
                        faq=self.faq, changes=self.version_changes,
                        limits=limits)
        if router is None and choice is not EngineChoice.OFFLINE:
            deps.degraded.append("engine")
        return deps

    async def chat(self) -> ChatService:
        """The chat service, its checkpointer on a pool of its own (opened once, even when the
        first requests arrive together)."""
        async with self._build_lock("chat"):
            if self._chat is None:
                pool: AsyncConnectionPool[Any] = AsyncConnectionPool(
                    self.database_url, open=False, min_size=1,
                    max_size=self.settings.database.pool_size,
                    kwargs={"autocommit": True, "prepare_threshold": 0,
                            "row_factory": dict_row})
                await pool.open()
                self._chat_pool = pool
                self._chat = await self.chat_with(AsyncPostgresSaver(pool))
        return self._chat

    async def chat_with(self, checkpointer: BaseCheckpointSaver[Any]) -> ChatService:
        guard = await self.guard()
        try:
            await self.concepts()  # turns reach the concept graph through it
        except Exception:  # the graph is an enrichment: chat works without it
            log.exception("concept services unavailable; turns run without the concept graph")
        default = self.default_engine
        if default is not EngineChoice.OFFLINE:
            # The default engine's routes now, so a misconfigured model fails the start; the
            # other engines' on their first use.
            async with self._build_lock(f"llm:{default.value}"):
                if default not in self._routers:
                    self._routers[default] = await self._build_router(default)
        return ChatService(checkpointer=checkpointer, documents=self.documents,
                           conversations=self.conversations,
                           deps=partial(self.turn_deps, guard),
                           max_documents=self.settings.retrieval.max_scope_documents,
                           projects=self.projects)

    @property
    def web_search(self) -> WebSearch | None:
        """Tavily when its key is set; None shows web search as unavailable."""
        w = self.settings.web_search
        if w.tavily_api_key is None:
            return None
        if self._web is None:
            self._web = TavilySearch(api_key=w.tavily_api_key.get_secret_value(),
                                     base_url=w.base_url, timeout_s=w.timeout_s,
                                     monthly_limit=w.monthly_limit)
        return self._web

    def register_jobs(self) -> None:
        """Every job handler a worker must know; building a service registers its jobs."""
        from regintel.adapters.postgres.context_repo import PostgresConversationContextStore
        from regintel.concepts.enrichment import register_concept_jobs

        _ = self.ingestion
        if not self._jobs_registered:
            self._jobs_registered = True

            async def enricher(tenant: str | None) -> Any:
                return (await self.concepts(UUID(tenant) if tenant else None)).enricher

            register_concept_jobs(
                self.queue, enricher,
                context_store=PostgresConversationContextStore(self.database),
                retention_days=self.settings.concepts.context_retention_days,
                graph=self.graph,
                tombstone_retention_days=self.settings.concepts.tombstone_retention_days)

    async def start_housekeeping(self) -> None:
        """Jobs a worker runs when it starts: the retention purges of inactive conversations'
        concept contexts and of old graph deletions (one of each queued at a time, whatever
        the number of workers)."""
        from regintel.concepts.enrichment import PURGE_CONTEXTS_JOB, PURGE_TOMBSTONES_JOB

        self.register_jobs()
        for job in (PURGE_CONTEXTS_JOB, PURGE_TOMBSTONES_JOB):
            try:
                await self.queue.defer(job, queueing_lock=job)
            except Exception as exc:  # already queued by another worker, or the queue is down
                log.info("%s not queued: %s", job, exc)

    async def health(self) -> dict[str, StoreStatus]:
        """Each store answers a trivial query; the queue lives in the database."""
        async def check(probe: Awaitable[None]) -> StoreStatus:
            try:
                await asyncio.wait_for(probe, timeout=5)
            except (RegintelError, TimeoutError, OSError) as exc:
                log.warning("health probe failed: %s", exc)
                return "down"
            return "ok"

        db, graph = await asyncio.gather(
            check(self.database.ping()), check(self.graph.ping())
        )
        checks: dict[str, StoreStatus] = {"db": db, "graph": graph, "queue": db}
        return checks

    async def llm_router(self, choice: EngineChoice) -> LlmRouter | None:
        """An engine's routes, built on first use; None for the offline engine or one that
        cannot be set up (benchmarks measure a model engine whatever the default)."""
        return await self._router(choice)

    def llm_status(self) -> str:
        """The local model server: ``ok``, ``idle`` (starts on the first turn that needs it),
        ``down``; ``off`` when no conversation can use it."""
        if not any(e.id is EngineChoice.LOCAL for e in self.engines()):
            return "off"
        return "idle" if self.local_model is None else self.local_model.status()

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        closers = [self.queue.close, self.graph.close, self.database.dispose,
                   *(client.aclose for client in self._llm_clients),
                   *([self._web.aclose] if self._web is not None else [])]
        if self._chat_pool is not None:
            closers.insert(0, self._chat_pool.close)
        for closer in closers:
            try:
                await closer()
            except Exception:  # closing must reach the embedded stores whatever else failed
                log.exception("error while closing %s", closer)
        if self.local_model is not None:
            await asyncio.to_thread(self.local_model.close)
        if self.embedded is not None:
            await asyncio.to_thread(self.embedded.close)
