"""The LLM engine: the engine steps over a ``ChatModel``, each with the offline engine as its
fallback (DESIGN §3). A step whose call fails (an ``ErrorChunk``, a timeout, output that is not
JSON or not the asked-for shape, document ids that are not in play, quotes that do not verify)
runs on the fallback instead; the turn goes on and ``name`` becomes ``"llm+fallback"``.

One engine per turn: ``fell_back``, ``fallbacks``, ``usage`` and ``cost_usd`` describe the turn
that used the instance, and ``name`` never returns to ``"llm"`` once a step fell back. The
composition root builds a fresh ``LlmEngine`` (cheap: it holds references only) for every turn,
over the tenant's routes (``routing.LlmRouter``): each step runs on the model of its route.

The inquiry is the turn's main call: prose streamed to the user as it is generated, with
``capture_concepts`` offered as a tool (when the model supports tools) so concept metadata
arrives on the side without a second call.

``compose_summary`` and ``compose_comparison`` are one structured call each: the evidence
numbered under its document's id, the model's statements carrying evidence numbers, mapped to
verified citations and the typed result in ``reports`` (a holistic comparison runs on the
``compare_holistic`` route, a focused one on ``compare_focused``). The audit (``audit``)
extracts the policy's themes on the ``steps`` route and asks for each theme's findings on the
``audit`` route; an audit that cannot be mapped runs whole on the offline auditor.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar
from uuid import UUID

from pydantic import BaseModel, ValidationError

from regintel.chat.engine import (
    Auditor,
    ChatEngine,
    Composed,
    IntentGuess,
    ReferenceResolution,
    TurnRecord,
)
from regintel.chat.llm import evidence_text, output_schema, references, reports, statements
from regintel.chat.llm import prompts as p
from regintel.chat.llm.audit import AuditStep, Prepare, llm_audit
from regintel.chat.llm.audit_prompts import FINDINGS_INPUT, FINDINGS_TASK
from regintel.chat.llm.citing import StreamedCitations
from regintel.chat.llm.egress import RedactingChatModel
from regintel.chat.llm.reports import StepFailed
from regintel.chat.llm.routing import Price, Route, RouteName, TenantRoutes
from regintel.chat.llm.verified import (
    EXAMPLE_PHRASES,
    Check,
    VerifiedStatements,
    leaked,
    phrases,
)
from regintel.chat.offline.compose import CAUTION
from regintel.chat.prompts import SYSTEM_PROMPT
from regintel.chat.state import DocRef
from regintel.chat.streaming import AnswerStream
from regintel.domain.chat import Action
from regintel.domain.conversations import StoredMessage
from regintel.domain.documents import ChunkHit, Document
from regintel.ports.library import ChunkIndex
from regintel.ports.llm import (
    ChatMessage,
    ChatModel,
    DoneChunk,
    ErrorChunk,
    JsonSchemaFormat,
    TextChunk,
    ToolCall,
    ToolChunk,
    ToolSpec,
    Usage,
)
from regintel.retrieval.evidence import CitationBook, content_words
from regintel.retrieval.hybrid import HybridRetriever

log = logging.getLogger(__name__)

Out = TypeVar("Out", bound=BaseModel)
ToolRunner = Callable[[str, dict[str, Any]], Awaitable[Any]]

CONFIDENT = 0.6           # intent confidence from which the action is taken without asking
MAX_TOOL_ROUNDS = 2       # detail-tool rounds on the main call before it must answer
MAX_TOOL_RESULT_CHARS = 6000
MIN_ANSWER_WORDS = 3      # besides citation markers: a lone "[1]" is no answer
# A window this small is a small local model's: its answer keeps only its supported
# statements, and it is shown a worked example and shortened evidence.
SMALL_CONTEXT_TOKENS = 8192
DEFAULT_TIMEOUT_S = 30.0  # one whole step, first token to last
# The model's whole audit (themes, then one call per theme, some concurrent): each call has
# its own bound, but a policy with many themes on a slow model could still keep the user
# waiting minutes; past this, the offline auditor answers instead.
DEFAULT_AUDIT_TIMEOUT_S = 180.0
# Evidence per document for the reports: the whole stratified sample of a summary (the spec
# bounds it at 30), a holistic comparison's first 20, a focused comparison's best 6.
SUMMARY_EVIDENCE = 30
HOLISTIC_EVIDENCE = 20
FOCUSED_EVIDENCE = 6
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
    AUDIT = "audit"
    # The main call's detail tools (a project's): a model that cannot call tools answers
    # without them, as the offline engine does, and the turn counts it as a fallback.
    DETAIL_TOOLS = "detail_tools"
    EXTRACT_THEMES = AuditStep.EXTRACT_THEMES.value
    AUDIT_FINDINGS = AuditStep.AUDIT_FINDINGS.value


ROUTE_OF: dict[Step, RouteName] = {
    Step.CLASSIFY_INTENT: RouteName.STEPS, Step.RESOLVE_REFERENCES: RouteName.STEPS,
    Step.SUMMARIZE_THREAD: RouteName.STEPS, Step.REWRITE_TONE: RouteName.STEPS,
    Step.COMPOSE_INQUIRY: RouteName.INQUIRE, Step.COMPOSE_SUMMARY: RouteName.SUMMARIZE,
    Step.COMPOSE_COMPARISON: RouteName.COMPARE_FOCUSED, Step.AUDIT: RouteName.AUDIT,
    Step.DETAIL_TOOLS: RouteName.INQUIRE,
    Step.EXTRACT_THEMES: RouteName.STEPS, Step.AUDIT_FINDINGS: RouteName.AUDIT,
}  # a holistic comparison names its route (COMPARE_HOLISTIC) on the call


# The steps that write the answer itself: when one falls back, the answer is the offline
# engine's and says so first (a step around it falling back changes nothing the user reads).
ANSWER_STEPS = frozenset({Step.COMPOSE_INQUIRY, Step.COMPOSE_SUMMARY, Step.COMPOSE_COMPARISON,
                          Step.AUDIT})


@dataclass(frozen=True)
class Fallback:
    step: Step
    reason: str


class LlmEngine:
    """``routes`` says which model runs each step (a single ``ChatModel`` runs them all);
    ``aspects`` are the turn's dynamic system-prompt paragraphs (profile, concepts in scope,
    project context), placed after the static prompt so its prefix stays cacheable."""

    def __init__(self, routes: TenantRoutes | ChatModel, fallback: ChatEngine, *,
                 timeout_s: float = DEFAULT_TIMEOUT_S,
                 audit_timeout_s: float = DEFAULT_AUDIT_TIMEOUT_S,
                 aspects: Sequence[str] = (), model_intent: bool = True,
                 model_tone: bool = True, label: str = "model") -> None:
        self.name = "llm"
        self._label = label  # how the fallback notice names the model ("local model")
        self._notice: str | None = None
        self._model_intent = model_intent
        self._model_tone = model_tone
        if not isinstance(routes, TenantRoutes):
            one = Route(alias="default", model=routes, price=Price())
            routes = TenantRoutes({r: one for r in RouteName})
        self._routes = routes
        self._fallback = fallback
        self._timeout_s = timeout_s
        self._audit_timeout_s = audit_timeout_s
        self.aspects = list(aspects)
        self._fallbacks: list[Fallback] = []
        self._input_tokens = 0
        self._output_tokens = 0
        self._cost_usd = 0.0
        self.models_used: list[str] = []
        self._tools: list[ToolSpec] = []
        self._tool_names: set[str] = set()
        self._run_tool: ToolRunner | None = None

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

    @property
    def cost_usd(self) -> float:
        return round(self._cost_usd, 8)

    def record(self) -> TurnRecord:
        usage = self.usage
        return TurnRecord(input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
                          cost_usd=self.cost_usd, models=tuple(self.models_used),
                          fallbacks=tuple(f"{f.step.value}: {f.reason}"
                                          for f in self._fallbacks),
                          notice=self._notice)

    def _account(self, route: Route, usage: Usage | None) -> None:
        if route.model_name not in self.models_used:
            self.models_used.append(route.model_name)
        if usage is not None:
            self._input_tokens += usage.input_tokens
            self._output_tokens += usage.output_tokens
            self._cost_usd += route.price.cost(usage.input_tokens, usage.output_tokens)

    def _system(self, *parts: str) -> str:
        """Static parts first (cacheable across calls and users), the turn's aspects last."""
        return "\n\n".join([SYSTEM_PROMPT, *parts, *self.aspects])

    def _fall_back(self, step: Step, reason: str) -> ChatEngine:
        log.warning("engine step %s fell back to %s: %s", step, self._fallback.name, reason)
        self._fallbacks.append(Fallback(step, reason))
        self.name = "llm+fallback"
        if step in ANSWER_STEPS and self._notice is None:
            self._notice = self._said(step, reason)
        return self._fallback

    def _said(self, step: Step, reason: str) -> str:
        """The answer's first sentence when the model's answer was replaced: why, in words."""
        model = f"The {self._label}"
        if reason == "timeout":
            limit = self._audit_timeout_s if step is Step.AUDIT else self._timeout_s
            why = f"{model} did not finish in {limit:g} s"
        elif reason.startswith("provider error"):
            why = f"{model} stopped with an error"
        elif "token limit" in reason:
            why = f"{model} ran out of room before its answer was complete"
        elif reason.startswith("malformed output"):
            why = f"{model} returned its answer in a form that could not be read"
        else:
            why = f"{model}'s answer did not pass the checks against the sources"
        return f"{why}; this is the offline engine's answer."

    # -- one structured call ------------------------------------------------------------------
    async def _ask(self, step: Step, task: str, user: str, output: type[Out], *,
                   route_name: RouteName | None = None,
                   numbered: reports.Numbered | None = None) -> Out:
        """Send ``[system, user]`` and validate the JSON answer as ``output``. Raises
        ``StepFailed`` (or ``TimeoutError``) when the answer is unusable. The step's route
        unless ``route_name`` says otherwise; a report's schema is narrowed to the
        ``numbered`` evidence shown and to the route's output tokens."""
        schema = output.model_json_schema()
        route = self._routes[route_name or ROUTE_OF[step]]
        if numbered is not None:
            schema = output_schema.narrowed(
                schema, documents=list(numbered.labels.values()), evidence=len(numbered.hits),
                output_tokens=route.output_tokens)
        if not route.model.supports_json_schema:
            task += f"\nThe JSON object must match this JSON Schema:\n{json.dumps(schema)}\n"
        system = self._system(task)
        messages = [ChatMessage(role="system", content=system),
                    ChatMessage(role="user", content=user)]
        # strict=False: pydantic's bounds (minimum, maxLength) are outside the strict subset
        # some providers accept; the answer is validated here either way.
        response_format = JsonSchemaFormat(name=step.value, json_schema=schema, strict=False)
        parts: list[str] = []
        async with asyncio.timeout(self._timeout_s), contextlib.aclosing(route.model.stream(
                messages, response_format=response_format, timeout_s=self._timeout_s)) as chunks:
            async for chunk in chunks:
                if isinstance(chunk, TextChunk):
                    parts.append(chunk.text)
                elif isinstance(chunk, ErrorChunk):
                    raise StepFailed(f"provider error: {chunk.message}")
                elif isinstance(chunk, DoneChunk):
                    self._account(route, chunk.usage)
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
        """The offline rules first: when they are sure (an explicit "summarize", "audit …
        against …"), a model call would only add latency and cost."""
        ruled = await self._fallback.classify_intent(message)
        if ruled.confident or not self._model_intent:
            return ruled
        step = Step.CLASSIFY_INTENT
        try:
            out = await self._ask(step, p.INTENT_TASK, p.INTENT_INPUT.format(message=message),
                                  p.IntentOutput)
        except (StepFailed, TimeoutError) as exc:
            self._fall_back(step, _why(exc))
            return ruled
        return IntentGuess(action=Action(out.action), confident=out.confidence >= CONFIDENT,
                           reason=out.reason)

    async def resolve_references(self, message: str, action: Action,
                                 explicit: Sequence[Document],
                                 registry: Sequence[DocRef]) -> ReferenceResolution:
        if not registry:
            # Nothing in play to infer from: the only outcomes are "none" and "a named document
            # is not in this conversation", which the rules decide without a model call.
            return await self._fallback.resolve_references(message, action, explicit, registry)
        step = Step.RESOLVE_REFERENCES
        user = p.REFERENCES_INPUT.format(
            message=message, action=action.value,
            explicit=", ".join(f"{d.id} ({d.title}; {d.doc_type.value})"
                               for d in explicit) or "none",
            registry="\n".join(f"{r['id']} | {r['title']} | {r['doc_type']} | {r['turn']}"
                               for r in registry) or "none")
        try:
            out = await self._ask(step, p.REFERENCES_TASK, user, p.ReferencesOutput)
            return references.resolution(out, explicit, registry)
        except (StepFailed, TimeoutError) as exc:
            fallback = self._fall_back(step, _why(exc))
            return await fallback.resolve_references(message, action, explicit, registry)

    async def compose_inquiry(self, question: str, hits: Sequence[ChunkHit],
                              book: CitationBook, *, caution: bool,
                              stream: AnswerStream | None = None,
                              follow_up: str | None = None) -> Composed:
        step = Step.COMPOSE_INQUIRY
        top, user = evidence_text.inquiry_input(question, hits, self._inquiry_budget(),
                                                short=self._small(Step.COMPOSE_INQUIRY))
        if not top:  # nothing to ground an answer on: the fixed reply needs no model
            return await self._fallback.compose_inquiry(question, hits, book, caution=caution,
                                                        follow_up=follow_up)
        kept = book.checkpoint()  # a failed answer's citations are taken back
        try:
            answer, concepts = await self._main_call(step, user, top, book, stream)
        except (StepFailed, TimeoutError) as exc:
            book.rollback(kept)
            if stream is not None:
                stream.reset()
            fallback = self._fall_back(step, _why(exc))
            return await fallback.compose_inquiry(question, hits, book, caution=caution,
                                                  follow_up=follow_up)
        if caution and answer != p.NO_ANSWER:
            answer += f"\n\n{CAUTION}"
        return Composed(answer=answer, concepts=concepts)

    async def prepare_inquiry(self, question: str, hits: Sequence[ChunkHit]) -> None:
        """The egress guard's scan of the evidence, done while the turn's other steps run."""
        top, user = evidence_text.inquiry_input(question, hits, self._inquiry_budget(),
                                                short=self._small(Step.COMPOSE_INQUIRY))
        scan = _scan_ahead(self._routes[ROUTE_OF[Step.COMPOSE_INQUIRY]])
        if top and scan is not None:
            await scan([user])

    def _small(self, step: Step) -> bool:
        return self._routes[ROUTE_OF[step]].context_tokens <= SMALL_CONTEXT_TOKENS

    def _inquiry_budget(self) -> int:
        route = self._routes[ROUTE_OF[Step.COMPOSE_INQUIRY]]
        tools = [p.CAPTURE_CONCEPTS_TOOL, *self._tools] if route.model.supports_tools else []
        example = [m.content or "" for m in self._example(Step.COMPOSE_INQUIRY)]
        return route.evidence_chars(
            self._system(p.INQUIRY_TASK, *([p.CAPTURE_INSTRUCTION] if tools else [])),
            p.INQUIRY_INPUT + (p.QUESTION_AGAIN if example else ""), *example,
            *(json.dumps(t.parameters) + t.description
                                         for t in tools))

    def _example(self, step: Step) -> list[ChatMessage]:
        """A worked example as an earlier exchange, for a small model only: without it the
        0.5B model copied the evidence block or answered with markers alone."""
        if not self._small(step):
            return []
        return [ChatMessage(role="user", content=p.EXAMPLE_NOTE + p.INQUIRY_INPUT.format(
                    question=p.EXAMPLE_QUESTION, evidence=p.EXAMPLE_EVIDENCE)
                    + p.QUESTION_AGAIN.format(question=p.EXAMPLE_QUESTION)),
                ChatMessage(role="assistant", content=p.EXAMPLE_ANSWER)]

    def _report_budget(self, route_name: RouteName, task: str, prompt: str) -> int:
        return self._routes[route_name].evidence_chars(self._system(task), prompt)

    async def _main_call(self, step: Step, user: str, evidence: Sequence[ChunkHit],
                         book: CitationBook, stream: AnswerStream | None
                         ) -> tuple[str, list[dict[str, Any]] | None]:
        """Stream the answer, renumbering its markers into ``book``; collect the
        ``capture_concepts`` payload (None when the model cannot call tools). Calls to the
        offered detail tools (a project's) are run and answered, for at most
        ``MAX_TOOL_ROUNDS`` rounds; the text of every round is one answer."""
        route = self._routes[ROUTE_OF[step]]
        tools = [p.CAPTURE_CONCEPTS_TOOL, *self._tools] if route.model.supports_tools else []
        # Detail tools the model was not offered leave its answer to the usual checks (a
        # small model's unsupported statements dropped, an uncited answer refused).
        tool_names = self._tool_names if tools else set()
        if self._tools and not tools and not any(
                f.step is Step.DETAIL_TOOLS for f in self._fallbacks):
            self._fall_back(Step.DETAIL_TOOLS, "the model cannot call tools; it answers "
                            "from the evidence and the project in its prompt")
        system = self._system(p.INQUIRY_TASK, *([p.CAPTURE_INSTRUCTION] if tools else []))
        messages = [ChatMessage(role="system", content=system), *self._example(step),
                    ChatMessage(role="user", content=user)]
        self._account(route, None)  # named as used even when it never finishes
        citing = StreamedCitations(evidence, book)
        small = route.context_tokens <= SMALL_CONTEXT_TOKENS and not tool_names
        verified = VerifiedStatements(self._check(step, evidence, book, small=small),
                                      first=book.checkpoint())
        concepts: list[dict[str, Any]] | None = [] if tools else None
        for round_ in range(MAX_TOOL_ROUNDS + 1):
            calls: list[ToolChunk] = []
            written: list[str] = []  # the model's own text of the round, for its tool calls
            async with asyncio.timeout(self._timeout_s), contextlib.aclosing(
                    route.model.stream(messages, tools=tools or None,
                                       timeout_s=self._timeout_s)) as chunks:
                async for chunk in chunks:
                    if isinstance(chunk, TextChunk):
                        written.append(chunk.text)
                        released = verified.feed(citing.feed(chunk.text))
                    elif isinstance(chunk, ToolChunk):
                        if chunk.name == p.CAPTURE_CONCEPTS_TOOL.name and concepts is not None:
                            concepts.append(chunk.arguments)
                        elif chunk.name in tool_names and round_ < MAX_TOOL_ROUNDS:
                            calls.append(chunk)
                        else:
                            log.warning("ignored a call to tool %r", chunk.name)
                        continue
                    elif isinstance(chunk, ErrorChunk):
                        raise StepFailed(f"provider error: {chunk.message}")
                    else:
                        self._account(route, chunk.usage)
                        released = verified.feed(citing.close())
                        if chunk.finish_reason == "length":
                            # A small model runs on past its answer: what it said up to its
                            # last cited statement stands; a cut before any does not.
                            if stream is not None:
                                stream.write(released)
                            return self._finished(verified, stream, book, whole_only=True,
                                                  uncited=False), concepts
                    if stream is not None:
                        stream.write(released)
            if not calls:
                break
            messages += await self._tool_messages("".join(written), calls)
        # A small model's kept statements each cite what supports them (``_check``).
        return self._finished(verified, stream, book, whole_only=False,
                              uncited=not small and not tool_names and not citing.cited
                              ), concepts

    def _check(self, step: Step, evidence: Sequence[ChunkHit], book: CitationBook, *,
               small: bool) -> Check:
        """How a statement of the answer is checked before it is shown: never a phrase of the
        worked example (shown to a small model) that the evidence does not also say; on a
        small model's window, only what its citations support, a sentence without a marker
        cited to the evidence that holds it (``statements``)."""
        example = EXAMPLE_PHRASES if self._example(step) else frozenset()
        evidence_says = phrases(*(h.text for h in evidence)) if example else frozenset()
        shown_with = frozenset(content_words(" ".join(
            f"{h.lead_in or ''} {h.opening or ''}" for h in evidence)))

        def check(statement: str) -> str:
            if example and (copied := leaked(statement, example, evidence_says)):
                log.info("dropped a statement repeating the worked example: %s", copied[0])
                return ""
            if not small:
                return statement
            kept, dropped = statements.supported(
                statements.cite_uncited(statement, evidence, book), book.citations, shown_with)
            if dropped:
                log.info("dropped %d unsupported statement(s) of the answer", dropped)
            return kept
        return check

    @staticmethod
    def _finished(verified: VerifiedStatements, stream: AnswerStream | None,
                  book: CitationBook, *, whole_only: bool, uncited: bool) -> str:
        """The answer once the model is done: its checked statements, the text held for a
        later citation released only when the whole answer passes (``StepFailed`` when it
        does not; nothing unchecked was shown). ``uncited``: none of the model's markers
        named verified evidence, which fails an answer. The book keeps the citations the
        answer shows, numbered as shown."""
        shown = verified.text
        tail = verified.close(whole_only=whole_only)
        answer = (shown + tail).strip()
        if len(_MARKER.sub(" ", answer).split()) < MIN_ANSWER_WORDS:
            raise StepFailed("the answer was cut at the token limit" if whole_only
                             else "no statement of the answer stands")
        if answer != p.NO_ANSWER and uncited:
            raise StepFailed("no statement of the answer cites verifiable evidence")
        if stream is not None:
            stream.write(tail)
        book.keep_shown(verified.shown, verified.first)
        return answer

    async def _tool_messages(self, text: str, calls: Sequence[ToolChunk]) -> list[ChatMessage]:
        """The assistant's calls and one answer per call (an error the model can read when
        a call fails: a bad id is the model's mistake to correct, not the turn's end)."""
        assert self._run_tool is not None
        out = [ChatMessage(role="assistant", content=text or None, tool_calls=tuple(
            ToolCall(id=c.id, name=c.name, arguments=c.arguments) for c in calls))]
        for call in calls:
            try:
                result: Any = await self._run_tool(call.name, call.arguments)
            except Exception as exc:
                log.warning("tool %s failed: %s", call.name, exc)
                result = {"error": str(exc)[:300]}
            content = json.dumps(result, default=str)[:MAX_TOOL_RESULT_CHARS]
            out.append(ChatMessage(role="tool", tool_call_id=call.id, content=content))
        return out

    def offer_tools(self, tools: Sequence[ToolSpec], run: ToolRunner) -> None:
        """Detail tools the main call may use this turn (a project's), and how to run them."""
        self._tools = list(tools)
        self._tool_names = {t.name for t in tools}
        self._run_tool = run

    async def compose_summary(self, documents: Sequence[Document],
                              samples: dict[UUID, list[ChunkHit]],
                              book: CitationBook, *, focus: str | None = None) -> Composed:
        step = Step.COMPOSE_SUMMARY
        numbered = evidence_text.fit_numbered(
            documents, samples, per_document=SUMMARY_EVIDENCE, best_first=False,
            budget_chars=self._report_budget(RouteName.SUMMARIZE, p.SUMMARY_TASK,
                                             p.SUMMARY_INPUT))
        if not numbered.hits:  # nothing sampled: the offline placeholders need no model
            return await self._fallback.compose_summary(documents, samples, book, focus=focus)
        user = p.SUMMARY_INPUT.format(count=len(numbered.document_ids),
                                      evidence=evidence_text.numbered_evidence(documents, numbered))
        kept = book.checkpoint()  # a rejected answer's citations are taken back
        try:
            out = await self._ask(step, p.SUMMARY_TASK, user, p.SummaryOutput,
                                  numbered=numbered)
            return reports.summary(out, documents, numbered, book)
        except (StepFailed, TimeoutError) as exc:
            book.rollback(kept)
            fallback = self._fall_back(step, _why(exc))
            return await fallback.compose_summary(documents, samples, book, focus=focus)

    async def compose_comparison(self, question: str, documents: Sequence[Document],
                                 evidence: dict[UUID, list[ChunkHit]], topic: str | None,
                                 book: CitationBook) -> Composed:
        """Focused (a topic): a difference table on the ``compare_focused`` route; holistic:
        the five-part report on the ``compare_holistic`` route (the larger model)."""
        step = Step.COMPOSE_COMPARISON
        route_name = RouteName.COMPARE_FOCUSED if topic else RouteName.COMPARE_HOLISTIC
        numbered = evidence_text.fit_numbered(
            documents, evidence, best_first=topic is not None,
            per_document=FOCUSED_EVIDENCE if topic else HOLISTIC_EVIDENCE,
            budget_chars=self._report_budget(
                route_name, p.COMPARE_FOCUSED_TASK if topic else p.COMPARE_HOLISTIC_TASK,
                question + (p.COMPARE_FOCUSED_INPUT if topic else p.COMPARE_HOLISTIC_INPUT)))
        if not numbered.hits:  # nothing to compare: the offline reply needs no model
            return await self._fallback.compose_comparison(question, documents, evidence,
                                                           topic, book)
        shown = evidence_text.numbered_evidence(documents, numbered)
        count = len(numbered.document_ids)
        kept = book.checkpoint()
        try:
            if topic:
                focused = await self._ask(
                    step, p.COMPARE_FOCUSED_TASK, p.COMPARE_FOCUSED_INPUT.format(
                        question=question, topic=topic, count=count, evidence=shown),
                    p.FocusedComparisonOutput, route_name=RouteName.COMPARE_FOCUSED,
                    numbered=numbered)
                return reports.focused(focused, documents, numbered, topic, book)
            holistic = await self._ask(
                step, p.COMPARE_HOLISTIC_TASK, p.COMPARE_HOLISTIC_INPUT.format(
                    question=question, count=count, evidence=shown),
                p.HolisticComparisonOutput, route_name=RouteName.COMPARE_HOLISTIC,
                numbered=numbered)
            return reports.holistic(holistic, documents, numbered, book)
        except (StepFailed, TimeoutError) as exc:
            book.rollback(kept)
            fallback = self._fall_back(step, _why(exc))
            return await fallback.compose_comparison(question, documents, evidence, topic,
                                                     book)

    async def compose_audit(self, auditor: Auditor, *, retriever: HybridRetriever,
                            index: ChunkIndex, tenant_id: UUID, targets: Sequence[Document],
                            source_document: Document | None, source_text: str | None,
                            book: CitationBook) -> Composed:
        route = self._routes[RouteName.AUDIT]
        try:
            async with asyncio.timeout(self._audit_timeout_s):
                return await llm_audit(self._ask_audit, retriever=retriever, index=index,
                                       tenant_id=tenant_id, targets=targets,
                                       source_document=source_document,
                                       source_text=source_text, book=book,
                                       context_tokens=route.context_tokens,
                                       evidence_chars=route.evidence_chars(
                                           self._system(FINDINGS_TASK), FINDINGS_INPUT),
                                       prepare=_scan_ahead(route))
        except (StepFailed, TimeoutError) as exc:  # its citations are already taken back
            self._fall_back(Step.AUDIT, _why(exc))
        return await auditor(tenant_id=tenant_id, targets=targets,
                             source_document=source_document, source_text=source_text,
                             book=book)

    async def _ask_audit(self, step: AuditStep, task: str, user: str,
                         output: type[Out]) -> Out:
        return await self._ask(Step(step.value), task, user, output)

    async def summarize_thread(self, previous: str, messages: Sequence[StoredMessage]) -> str:
        step = Step.SUMMARIZE_THREAD
        lines = [f"{m.role}: {' '.join(m.content.split())}" for m in messages]
        budget = self._report_budget(ROUTE_OF[step], p.THREAD_TASK, p.THREAD_INPUT + previous)
        while len(lines) > 1 and sum(len(x) + 1 for x in lines) > budget:
            lines.pop(0)  # a small window: the latest messages (the summary holds the rest)
        user = p.THREAD_INPUT.format(previous=previous.strip() or "(none)",
                                     messages="\n".join(lines)[-budget:])
        try:
            out = await self._ask(step, p.THREAD_TASK, user, p.ThreadSummaryOutput)
        except (StepFailed, TimeoutError) as exc:
            return await self._fall_back(step, _why(exc)).summarize_thread(previous, messages)
        return out.summary.strip()

    async def rewrite_tone(self, text: str) -> tuple[str, list[str]]:
        step = Step.REWRITE_TONE
        if not self._model_tone:  # by choice, not a failure: the rules check the tone
            return await self._fallback.rewrite_tone(text)
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


def _markers_of(text: str) -> list[str]:
    return sorted(_MARKER.findall(text))


def _scan_ahead(route: Route) -> Prepare | None:
    """The egress guard's scan of texts a route's calls will send, to run ahead of them (None
    for a provider that is not redacted)."""
    return route.model.prewarm if isinstance(route.model, RedactingChatModel) else None
