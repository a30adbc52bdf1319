"""What a turn runs with. One ``TurnDeps`` per request travels in the run's context (LangGraph
``Runtime.context``), never in globals: tenant, user, stores, engine, limits."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Protocol
from uuid import UUID

from regintel.changes.impacting import ChangeReports
from regintel.chat.ahead import Ahead
from regintel.chat.engine import Auditor, ChatEngine
from regintel.concepts.services import ConceptServices, TurnStart
from regintel.domain.coverage import CoverageMatrix
from regintel.ontology.loader import ProjectContext
from regintel.ontology.service import OntologyService
from regintel.ports.conversations import ConversationStore
from regintel.ports.embedder import Embedder
from regintel.ports.library import ChunkIndex, DocumentStore
from regintel.ports.websearch import WebSearch
from regintel.retrieval.hybrid import HybridRetriever


class GuardVerdict(Protocol):
    @property
    def blocked(self) -> bool: ...
    @property
    def category(self) -> str | None: ...
    @property
    def response(self) -> str | None: ...
    @property
    def masked_text(self) -> str: ...
    @property
    def log(self) -> list[str]: ...


class Guard(Protocol):
    """The guardrails the pipeline needs (implemented in ``regintel.guardrails``)."""

    def check(self, text: str) -> GuardVerdict: ...

    def scan_passage(self, text: str) -> bool:
        """True when retrieved text carries instructions aimed at the assistant."""
        ...

    def find_pii(self, text: str) -> list[tuple[str, int, int]]:
        """``(entity_type, start, end)`` of each PII span in ``text``."""
        ...




class FaqMatcher(Protocol):
    async def match(self, tenant_id: UUID, question: str) -> str | None: ...


@dataclass(frozen=True)
class ChatLimits:
    high_threshold: float = 0.39
    medium_threshold: float = 0.10
    adaptive_threshold: float = 0.3
    max_documents: int = 5
    memory_window: int = 10          # messages kept verbatim in long threads
    summarize_after: int = 15        # messages before the rolling summary takes over
    max_tool_rounds: int = 2


@dataclass
class TurnDeps:
    tenant_id: UUID
    user_id: UUID | None
    conversation_id: UUID
    documents: DocumentStore
    conversations: ConversationStore
    retriever: HybridRetriever
    index: ChunkIndex
    embedder: Embedder
    engine: ChatEngine
    guard: Guard
    auditor: Auditor
    faq: FaqMatcher | None = None
    web: WebSearch | None = None  # None: web search is not configured
    projects: OntologyService | None = None
    project_id: UUID | None = None                 # the thread's compliance project, if any
    project: ProjectContext | None = None          # its context, loaded once per turn
    concepts: ConceptServices | None = None        # None: no concept graph (tests, tools)
    # The conversation's concepts, loaded once per turn (chat.concepts.begin).
    concept_loading: asyncio.Task[TurnStart | None] | None = None
    ahead: Ahead | None = None                     # work started ahead (chat.prefetch)
    changes: ChangeReports | None = None           # None: versions are not compared here
    # The turn's audit matrix, which the memory step keeps beside the answer message for the
    # reports: here, not in the graph's state, which every checkpoint would write again.
    audit_matrix: CoverageMatrix | None = None
    limits: ChatLimits = field(default_factory=ChatLimits)
    # What this turn runs without ("engine": the conversation's model could not be set up,
    # so the offline engine answers); shown with the response's other degradations.
    degraded: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    clock: Callable[[], float] = time.perf_counter

    @contextmanager
    def timed(self, phase: str) -> Iterator[None]:
        """Adds the block's wall time to ``phase`` (what ``regintel bench chat`` reports)."""
        start = self.clock()
        try:
            yield
        finally:
            self.timings[phase] = self.timings.get(phase, 0.0) + self.clock() - start
