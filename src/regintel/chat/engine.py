"""The engine steps of a turn. Each step an LLM could do sits behind this interface; the
offline engine (``chat/offline``) implements all of them deterministically, and the LLM engine
(issue: LLM engine) implements them over a chat model with the offline one as its fallback."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol
from uuid import UUID

from regintel.chat.state import DocRef
from regintel.chat.streaming import AnswerStream
from regintel.domain.chat import Action, AuditResult, ComparisonResult, SummaryResult
from regintel.domain.conversations import StoredMessage
from regintel.domain.coverage import CoverageMatrix
from regintel.domain.documents import ChunkHit, Document
from regintel.ports.library import ChunkIndex
from regintel.ports.llm import ToolSpec
from regintel.retrieval.evidence import CitationBook
from regintel.retrieval.hybrid import HybridRetriever

InferenceLevel = Literal["high", "medium", "low", "none"]


@dataclass(frozen=True)
class IntentGuess:
    action: Action
    confident: bool
    reason: str


@dataclass(frozen=True)
class ReferenceResolution:
    """The spec's structured output of document resolution."""

    has_implicit_refs: bool
    inferred_doc_ids: list[str]
    inference_confidence: InferenceLevel
    reasoning: str
    candidates: list[str] = field(default_factory=list)  # for a confirmation (medium)
    unmatched: str | None = None                          # a named document not in play (low)
    unmatched_kind: str | None = None                     # its kind, from the noun used


@dataclass(frozen=True)
class Composed:
    answer: str
    summary: SummaryResult | None = None
    comparison: ComparisonResult | None = None
    audit: AuditResult | None = None
    # The audit's coverage matrix (the offline engine's; kept beside the answer for the
    # reports, never shown in the chat itself).
    matrix: CoverageMatrix | None = None
    # capture_concepts payloads of the main call (None: the engine captured nothing itself,
    # so the offline concept extractor runs).
    concepts: list[dict[str, Any]] | None = None


@dataclass(frozen=True)
class TurnRecord:
    """What the engine spent on the turn and where it fell back (offline: nothing)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    models: tuple[str, ...] = ()
    fallbacks: tuple[str, ...] = ()  # "step: reason"
    # The answer is the offline engine's because the model's failed: said first, in words.
    notice: str | None = None


class Auditor(Protocol):
    async def __call__(self, *, tenant_id: UUID, targets: Sequence[Document],
                       source_document: Document | None, source_text: str | None,
                       book: CitationBook) -> Composed: ...


class ChatEngine(Protocol):
    name: str
    # The turn's dynamic system-prompt paragraphs (profile, concepts in scope, project); an
    # engine that sends no prompt ignores them.
    aspects: list[str]

    def record(self) -> TurnRecord: ...

    def offer_tools(self, tools: Sequence[ToolSpec],
                    run: Callable[[str, dict[str, Any]], Awaitable[Any]]) -> None:
        """Detail tools the main call may use this turn; an engine without tool calls
        ignores them."""
        ...


    async def classify_intent(self, message: str) -> IntentGuess: ...

    async def resolve_references(self, message: str, action: Action,
                                 explicit: Sequence[Document],
                                 registry: Sequence[DocRef]) -> ReferenceResolution: ...

    async def compose_inquiry(self, question: str, hits: Sequence[ChunkHit],
                              book: CitationBook, *, caution: bool,
                              stream: AnswerStream | None = None,
                              follow_up: str | None = None) -> Composed:
        """``stream``, when given, receives the answer as it is generated (an engine that
        composes all at once may ignore it: the answer is streamed at the end of the turn).
        ``follow_up``: the user's own words when ``question`` is a follow-up read with the
        thread's earlier questions (what the answer must lead with is in these words)."""
        ...

    async def prepare_inquiry(self, question: str, hits: Sequence[ChunkHit]) -> None:
        """Work ``compose_inquiry`` can do ahead, while the turn's other steps run (the LLM
        engine redacts the evidence for an external provider); a no-op where there is none."""
        ...

    async def compose_summary(self, documents: Sequence[Document],
                              samples: dict[UUID, list[ChunkHit]],
                              book: CitationBook, *, focus: str | None = None) -> Composed: ...

    async def compose_comparison(self, question: str, documents: Sequence[Document],
                                 evidence: dict[UUID, list[ChunkHit]], topic: str | None,
                                 book: CitationBook) -> Composed: ...

    async def compose_audit(self, auditor: Auditor, *, retriever: HybridRetriever,
                            index: ChunkIndex, tenant_id: UUID, targets: Sequence[Document],
                            source_document: Document | None, source_text: str | None,
                            book: CitationBook) -> Composed:
        """The audit: ``auditor`` is the offline one (the offline engine's whole audit, the
        LLM engine's fallback)."""
        ...

    async def summarize_thread(self, previous: str, messages: Sequence[StoredMessage]) -> str: ...

    async def rewrite_tone(self, text: str) -> tuple[str, list[str]]: ...
