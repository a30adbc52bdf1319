"""The offline engine: every engine step, deterministic, grounded, no network."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Any
from uuid import UUID

from regintel.chat.engine import (
    Auditor,
    Composed,
    IntentGuess,
    ReferenceResolution,
    TurnRecord,
)
from regintel.chat.offline import compare, compose, focused_summary, intent, references
from regintel.chat.offline.ranking import Kept
from regintel.chat.state import DocRef
from regintel.chat.streaming import AnswerStream
from regintel.domain.chat import Action
from regintel.domain.conversations import StoredMessage
from regintel.domain.documents import ChunkHit, Document
from regintel.ports.embedder import Embedder
from regintel.ports.library import ChunkIndex
from regintel.ports.llm import ToolSpec
from regintel.retrieval.evidence import CitationBook
from regintel.retrieval.hybrid import HybridRetriever

SUMMARY_WORDS = 200
# Casual phrasing → the corporate register of the spec's "Communication Style".
_TONE: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (re.compile(r"\bOops[,!.]?\s*", re.I), "", "removed 'Oops'"),
    (re.compile(r"\b(?:Okay|OK|Ok) so,?\s*", re.I), "", "removed 'Okay so'"),
    (re.compile(r"\bLet me\s+", re.I), "I will ", "'Let me' → 'I will'"),
    (re.compile(r"\bI'll go ahead and\b", re.I), "I will proceed to", "'I'll go ahead' → formal"),
    (re.compile(r"\bI'll\b"), "I will", "'I'll' → 'I will'"),
    (re.compile(r"\bI think\s+", re.I), "", "removed 'I think'"),
    (re.compile(r"\bgonna\b", re.I), "going to", "'gonna' → 'going to'"),
    (re.compile(r"\bwanna\b", re.I), "want to", "'wanna' → 'want to'"),
    (re.compile(r"\bright\?\s*$", re.I | re.M), "Please confirm.", "'right?' → 'Please confirm.'"),
    (re.compile(r"!+"), ".", "exclamation marks → full stops"),
)
_STOPWORDS_TEXT = """a an the of to in on for and or is are was were be been what which who
how does do did
can could should would will with about from that this these those it its as at by we our
you your me my i please tell explain there their they them than then under any all
summarize summarise compare audit versus between against"""
_STOPWORDS = frozenset(_STOPWORDS_TEXT.split())


def topics(text: str, k: int = 5) -> list[str]:
    """The content words of a question, most specific (longest) first — the Q&A index tags."""
    words = [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z-]{2,}", text)]
    seen: list[str] = []
    for w in sorted(words, key=len, reverse=True):
        if w not in _STOPWORDS and w not in seen:
            seen.append(w)
    return seen[:k]


class OfflineEngine:
    name = "offline"

    def __init__(self, embedder: Embedder, kept: Kept | None = None) -> None:
        self._embedder = embedder
        self._kept = kept  # where sentence vectors outlast the turn (ranking.Kept)
        self.aspects: list[str] = []  # the offline engine sends no prompt

    def record(self) -> TurnRecord:
        return TurnRecord()

    def offer_tools(self, tools: Sequence[ToolSpec],
                    run: Callable[[str, dict[str, Any]], Awaitable[Any]]) -> None:
        """The offline engine answers project questions through ``regintel.ontology``'s
        answerer instead of tool calls."""

    async def classify_intent(self, message: str) -> IntentGuess:
        return intent.classify(message)

    async def resolve_references(
        self, message: str, action: Action, explicit: Sequence[Document], registry: Sequence[DocRef]
    ) -> ReferenceResolution:
        return references.resolve(message, action, explicit, registry)

    async def compose_audit(self, auditor: Auditor, *, retriever: HybridRetriever,
                            index: ChunkIndex, tenant_id: UUID, targets: Sequence[Document],
                            source_document: Document | None, source_text: str | None,
                            book: CitationBook) -> Composed:
        return await auditor(tenant_id=tenant_id, targets=targets,
                             source_document=source_document, source_text=source_text,
                             book=book)

    async def prepare_inquiry(self, question: str, hits: Sequence[ChunkHit]) -> None:
        """Nothing to prepare: composing is local and quick."""

    async def compose_inquiry(
        self, question: str, hits: Sequence[ChunkHit], book: CitationBook, *, caution: bool,
        stream: AnswerStream | None = None, follow_up: str | None = None,
    ) -> Composed:
        return await compose.inquiry(self._embedder, question, hits, book, caution=caution,
                                     kept=self._kept, follow_up=follow_up)

    async def compose_summary(
        self,
        documents: Sequence[Document],
        samples: dict[UUID, list[ChunkHit]],
        book: CitationBook,
        *,
        focus: str | None = None,
    ) -> Composed:
        if focus:
            return await focused_summary.summary(self._embedder, focus, documents, samples,
                                                 book, kept=self._kept)
        return await compose.summary(self._embedder, documents, samples, book, kept=self._kept)

    async def compose_comparison(
        self,
        question: str,
        documents: Sequence[Document],
        evidence: dict[UUID, list[ChunkHit]],
        topic: str | None,
        book: CitationBook,
    ) -> Composed:
        return await compare.compare(self._embedder, question, documents, evidence, topic, book,
                                     kept=self._kept)

    async def summarize_thread(self, previous: str, messages: Sequence[StoredMessage]) -> str:
        """A rolling digest: the earlier summary plus one line per exchange, newest kept when
        it runs past about 200 words."""
        lines = [line for line in previous.splitlines() if line.strip()]
        question = ""
        for message in messages:
            if message.role == "user":
                question = " ".join(message.content.split())[:160]
            elif message.role == "assistant" and question:
                gist = _first_sentence(message.content)
                lines.append(f"- Asked: {question} → {gist}")
                question = ""
        while lines and sum(len(line.split()) for line in lines) > SUMMARY_WORDS:
            lines.pop(0)
        return "\n".join(lines)

    async def rewrite_tone(self, text: str) -> tuple[str, list[str]]:
        adjustments: list[str] = []
        for pattern, replacement, note in _TONE:
            text, count = pattern.subn(replacement, text)
            if count:
                adjustments.append(note)
        return text, adjustments


def _first_sentence(text: str) -> str:
    body = " ".join(line for line in text.splitlines() if line.strip() and not line.startswith("#"))
    cut = re.split(r"(?<=[.;:])\s", body, maxsplit=1)[0]
    return cut[:200]
