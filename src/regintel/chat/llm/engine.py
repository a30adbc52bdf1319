"""The LLM engine: the engine steps over a ``ChatModel``, each with the offline engine as its
fallback (DESIGN §3). A step whose call fails (an ``ErrorChunk``, a timeout, output that is not
JSON or not the asked-for shape, document ids that are not in play, quotes that do not verify)
runs on the fallback instead; the turn goes on and ``name`` becomes ``"llm+fallback"``.

One engine per turn: ``fell_back``, ``fallbacks`` and ``usage`` describe the turn that used the
instance, and ``name`` never returns to ``"llm"`` once a step fell back. The composition root
builds a fresh ``LlmEngine`` (cheap: it holds references only) for every turn.

``compose_summary`` and ``compose_comparison`` are delegated to the fallback for now; a delegated
step counts as a fallback (reason ``"delegated"``), so the response never claims an LLM did it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeVar
from uuid import UUID

from pydantic import BaseModel, ValidationError

from regintel.chat.engine import ChatEngine, Composed, IntentGuess, ReferenceResolution
from regintel.chat.evidence import CitationBook, verify
from regintel.chat.llm import prompts as p
from regintel.chat.offline.compose import CAUTION
from regintel.chat.prompts import SYSTEM_PROMPT
from regintel.chat.state import DocRef
from regintel.domain.chat import MAX_QUOTE_CHARS, Action
from regintel.domain.conversations import StoredMessage
from regintel.domain.documents import ChunkHit, Document
from regintel.ports.llm import (
    ChatMessage,
    ChatModel,
    DoneChunk,
    ErrorChunk,
    JsonSchemaFormat,
    TextChunk,
    Usage,
)

log = logging.getLogger(__name__)

Out = TypeVar("Out", bound=BaseModel)

CONFIDENT = 0.6           # intent confidence from which the action is taken without asking
MAX_EVIDENCE = 8          # hits shown to the model, best first
DEFAULT_TIMEOUT_S = 30.0  # one whole step, first token to last
_MARKER = re.compile(r"\s*\[(\d+)\]")
_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.S)


class Step(StrEnum):
    CLASSIFY_INTENT = "classify_intent"
    RESOLVE_REFERENCES = "resolve_references"
    COMPOSE_INQUIRY = "compose_inquiry"
    COMPOSE_SUMMARY = "compose_summary"
    COMPOSE_COMPARISON = "compose_comparison"
    SUMMARIZE_THREAD = "summarize_thread"
    REWRITE_TONE = "rewrite_tone"


class StepFailed(Exception):
    """The model's answer to one step is unusable; the step runs on the fallback."""


@dataclass(frozen=True)
class Fallback:
    step: Step
    reason: str


class LlmEngine:
    """``models`` maps a step name (``Step`` value) to the model that runs it; steps not in it
    use the chat model's default."""

    def __init__(self, model: ChatModel, fallback: ChatEngine, *,
                 models: dict[str, str] | None = None,
                 timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        unknown = set(models or {}) - {s.value for s in Step}
        if unknown:
            raise ValueError(f"unknown engine steps in models: {sorted(unknown)}")
        self.name = "llm"
        self._model = model
        self._fallback = fallback
        self._models = dict(models or {})
        self._timeout_s = timeout_s
        self._fallbacks: list[Fallback] = []
        self._input_tokens = 0
        self._output_tokens = 0

    # -- per-turn record ----------------------------------------------------------------------
    @property
    def fell_back(self) -> bool:
        return bool(self._fallbacks)

    @property
    def fallbacks(self) -> list[Fallback]:
        return list(self._fallbacks)

    @property
    def usage(self) -> Usage:
        """Tokens of every completed call of this engine (failed calls report none)."""
        return Usage(input_tokens=self._input_tokens, output_tokens=self._output_tokens)

    def _fall_back(self, step: Step, reason: str) -> ChatEngine:
        if reason == "delegated":
            log.debug("engine step %s delegated to %s", step, self._fallback.name)
        else:
            log.warning("engine step %s fell back to %s: %s", step, self._fallback.name, reason)
        self._fallbacks.append(Fallback(step, reason))
        self.name = "llm+fallback"
        return self._fallback

    # -- one structured call ------------------------------------------------------------------
    async def _ask(self, step: Step, task: str, user: str, output: type[Out]) -> Out:
        """Send ``[system, user]`` and validate the JSON answer as ``output``. Raises
        ``StepFailed`` (or ``TimeoutError``) when the answer is unusable."""
        schema = output.model_json_schema()
        system = f"{SYSTEM_PROMPT}\n{task}"
        if not self._model.supports_json_schema:
            system += f"\nThe JSON object must match this JSON Schema:\n{json.dumps(schema)}\n"
        messages = [ChatMessage(role="system", content=system),
                    ChatMessage(role="user", content=user)]
        # strict=False: pydantic's bounds (minimum, maxLength) are outside the strict subset
        # some providers accept; the answer is validated here either way.
        response_format = JsonSchemaFormat(name=step.value, json_schema=schema, strict=False)
        parts: list[str] = []
        async with asyncio.timeout(self._timeout_s), contextlib.aclosing(self._model.stream(
                messages, response_format=response_format, model=self._models.get(step),
                timeout_s=self._timeout_s)) as chunks:
            async for chunk in chunks:
                if isinstance(chunk, TextChunk):
                    parts.append(chunk.text)
                elif isinstance(chunk, ErrorChunk):
                    raise StepFailed(f"provider error: {chunk.message}")
                elif isinstance(chunk, DoneChunk):
                    if chunk.usage is not None:
                        self._input_tokens += chunk.usage.input_tokens
                        self._output_tokens += chunk.usage.output_tokens
                    if chunk.finish_reason == "length":
                        raise StepFailed("the answer was cut at the token limit")
        text = "".join(parts)
        fenced = _FENCE.match(text)
        try:
            return output.model_validate_json(fenced.group(1) if fenced else text)
        except ValidationError as exc:
            raise StepFailed(f"malformed output: {exc.error_count()} error(s): "
                             f"{exc.errors()[0]['msg']}") from exc

    # -- steps --------------------------------------------------------------------------------
    async def classify_intent(self, message: str) -> IntentGuess:
        step = Step.CLASSIFY_INTENT
        try:
            out = await self._ask(step, p.INTENT_TASK, p.INTENT_INPUT.format(message=message),
                                  p.IntentOutput)
        except (StepFailed, TimeoutError) as exc:
            return await self._fall_back(step, _why(exc)).classify_intent(message)
        return IntentGuess(action=Action(out.action), confident=out.confidence >= CONFIDENT,
                           reason=out.reason)

    async def resolve_references(self, message: str, action: Action,
                                 explicit: Sequence[Document],
                                 registry: Sequence[DocRef]) -> ReferenceResolution:
        step = Step.RESOLVE_REFERENCES
        user = p.REFERENCES_INPUT.format(
            message=message, action=action.value,
            explicit=", ".join(f"{d.id} ({d.title})" for d in explicit) or "none",
            registry="\n".join(f"{r['id']} | {r['title']} | {r['doc_type']} | {r['turn']}"
                               for r in registry) or "none")
        try:
            out = await self._ask(step, p.REFERENCES_TASK, user, p.ReferencesOutput)
            return _resolution(out, explicit, registry)
        except (StepFailed, TimeoutError) as exc:
            fallback = self._fall_back(step, _why(exc))
            return await fallback.resolve_references(message, action, explicit, registry)

    async def compose_inquiry(self, question: str, hits: Sequence[ChunkHit],
                              book: CitationBook, *, caution: bool) -> Composed:
        step = Step.COMPOSE_INQUIRY
        top = sorted(hits, key=lambda h: -h.score)[:MAX_EVIDENCE]
        if not top:  # nothing to ground an answer on: the fixed reply needs no model
            return await self._fallback.compose_inquiry(question, hits, book, caution=caution)
        user = p.INQUIRY_INPUT.format(question=question, evidence="\n\n".join(
            _evidence_item(n, hit) for n, hit in enumerate(top, 1)))
        try:
            out = await self._ask(step, p.INQUIRY_TASK, user, p.InquiryOutput)
            answer = _cite_answer(out, top, book)
        except (StepFailed, TimeoutError) as exc:
            fallback = self._fall_back(step, _why(exc))
            return await fallback.compose_inquiry(question, hits, book, caution=caution)
        if caution:
            answer += f"\n\n{CAUTION}"
        return Composed(answer=answer)

    async def compose_summary(self, documents: Sequence[Document],
                              samples: dict[UUID, list[ChunkHit]],
                              book: CitationBook) -> Composed:
        fallback = self._fall_back(Step.COMPOSE_SUMMARY, "delegated")
        return await fallback.compose_summary(documents, samples, book)

    async def compose_comparison(self, question: str, documents: Sequence[Document],
                                 evidence: dict[UUID, list[ChunkHit]], topic: str | None,
                                 book: CitationBook) -> Composed:
        fallback = self._fall_back(Step.COMPOSE_COMPARISON, "delegated")
        return await fallback.compose_comparison(question, documents, evidence, topic, book)

    async def summarize_thread(self, previous: str, messages: Sequence[StoredMessage]) -> str:
        step = Step.SUMMARIZE_THREAD
        user = p.THREAD_INPUT.format(
            previous=previous.strip() or "(none)",
            messages="\n".join(f"{m.role}: {' '.join(m.content.split())}" for m in messages))
        try:
            out = await self._ask(step, p.THREAD_TASK, user, p.ThreadSummaryOutput)
        except (StepFailed, TimeoutError) as exc:
            return await self._fall_back(step, _why(exc)).summarize_thread(previous, messages)
        return out.summary.strip()

    async def rewrite_tone(self, text: str) -> tuple[str, list[str]]:
        step = Step.REWRITE_TONE
        try:
            out = await self._ask(step, p.TONE_TASK, p.TONE_INPUT.format(text=text),
                                  p.ToneOutput)
            if out.appropriate:
                return text, []
            if not out.rewritten or not out.rewritten.strip():
                raise StepFailed("tone judged inappropriate but no rewrite given")
            if _markers_of(out.rewritten) != _markers_of(text):
                raise StepFailed("the rewrite changed the citation markers")
        except (StepFailed, TimeoutError) as exc:
            return await self._fall_back(step, _why(exc)).rewrite_tone(text)
        return out.rewritten, out.adjustments or ["tone rewritten to the corporate register"]


# -- helpers ----------------------------------------------------------------------------------
def _why(exc: Exception) -> str:
    return "timeout" if isinstance(exc, TimeoutError) else str(exc)


def _resolution(out: p.ReferencesOutput, explicit: Sequence[Document],
                registry: Sequence[DocRef]) -> ReferenceResolution:
    in_play = {r["id"] for r in registry}
    invented = [i for i in out.inferred_doc_ids if i not in in_play]
    if invented:
        raise StepFailed(f"inferred ids not in the conversation: {invented}")
    tagged = {str(d.id) for d in explicit}
    inferred = list(dict.fromkeys(i for i in out.inferred_doc_ids if i not in tagged))
    if not out.has_implicit_refs:
        return ReferenceResolution(False, [], "none", out.reasoning)
    if out.inferred_doc_ids and not inferred:  # "this regulation" with @it tagged
        return ReferenceResolution(False, [], "none", out.reasoning)
    match out.inference_confidence:
        case "high":
            if not inferred:
                raise StepFailed("high confidence without an inferred document")
            return ReferenceResolution(True, inferred, "high", out.reasoning)
        case "medium":
            if not inferred:
                raise StepFailed("medium confidence without candidates")
            return ReferenceResolution(True, [], "medium", out.reasoning, candidates=inferred)
        case "low":
            return ReferenceResolution(True, [], "low", out.reasoning,
                                       unmatched=out.unmatched_name,
                                       unmatched_kind=out.unmatched_kind)


def _evidence_item(n: int, hit: ChunkHit) -> str:
    clause = f", clause {hit.clause}" if hit.clause else ""
    pages = f"p. {hit.page_start}" if hit.page_end == hit.page_start else \
        f"pp. {hit.page_start}-{hit.page_end}"
    return p.EVIDENCE_ITEM.format(n=n, title=hit.document_title, clause=clause,
                                  page=f", {pages}", text=hit.text)


def _markers_of(text: str) -> list[str]:
    return sorted(_MARKER.findall(text))


def _cite_answer(out: p.InquiryOutput, top: Sequence[ChunkHit], book: CitationBook) -> str:
    """The answer with its evidence numbers replaced by the book's citation numbers. Only
    quotes for numbers the answer uses are cited; one that does not verify is dropped (and
    counted by the book), and a marker left without a verified quote is removed. Nothing is
    cited unless the answer keeps at least one citation, so a fallback leaves the book as it
    was (bar the dropped-quote count)."""
    if out.answer.strip() == p.NO_ANSWER:
        return p.NO_ANSWER
    used = list(dict.fromkeys(int(n) for n in _MARKER.findall(out.answer)))
    good: dict[int, str] = {}
    for q in out.quotes:
        if q.n not in used or q.n in good:
            continue
        hit = top[q.n - 1] if 1 <= q.n <= len(top) else None
        if hit is None:
            book.dropped += 1  # a quote for evidence that was never shown
        elif len(q.quote.strip()) <= MAX_QUOTE_CHARS and verify(q.quote, hit.text):
            good[q.n] = q.quote
        else:
            book.cite(hit, q.quote)  # fails verification: the book drops and counts it
    if not good:
        raise StepFailed("no quote of the answer verifies against its evidence")
    numbers: dict[int, int] = {}
    for n in (n for n in used if n in good):  # numbered in the order the answer cites
        cited = book.cite(top[n - 1], good[n])
        if cited is not None:
            numbers[n] = cited

    def renumber(m: re.Match[str]) -> str:
        n = int(m.group(1))
        return m.group(0).replace(f"[{n}]", f"[{numbers[n]}]") if n in numbers else ""

    return _MARKER.sub(renumber, out.answer).strip()
