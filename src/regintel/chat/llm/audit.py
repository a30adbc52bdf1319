"""The audit over a chat model (policypal spec, action 4), in the offline audit's shape.

Policy mode: a stratified sample of the policy → one call for its compliance themes (at most
``MAX_THEMES``) → per theme, the ``DEPTH`` best passages of every target, shown ``BATCH`` at a
time → one call per batch for the findings, run concurrently (``CONCURRENCY`` at a time).
Each call shows the whole policy when it fits a quarter of the audit model's context (a clause
that contradicts a rule is rarely among the passages most like it: it words the same duty with
another period or actor); otherwise the theme's best policy passages and, for each target
passage, the policy passage nearest it. Text mode (a pasted text of at most ``MAX_WORDS``
words): the text's sentences and each target's best passages for the whole text → one call.
So an audit costs 1 + the batches' calls (at most themes × ⌈targets × DEPTH / BATCH⌉), or 1.

The spec's 2-3 passages per target per theme show a model too little of a rulebook to find
most of what a policy leaves out: a planted gap whose rule is never shown cannot be found,
however good the model. research/experiments/audit_reach.py measures that ceiling on the
development policies; ``DEPTH`` and ``BATCH`` are chosen there (the figures are beside them).

The model never quotes. A finding names the TARGET passage that states the requirement
(``"T2"``) and, optionally, the SOURCE passage that says otherwise or comes closest
(``"S1"``); the quotes are the sentences of those passages closest to the requirement the
model restates, cut verbatim from the stored chunk (the pasted text in text mode) and cited
through the turn's ``CitationBook`` like every other quote.

Answers that cannot be mapped faithfully reject the whole audit (``AuditUnusable``, a
``StepFailed``): an evidence id that was not shown, a conflict without the source passage it
conflicts with, no usable theme. Malformed JSON (and more than ``MAX_FINDINGS_PER_CALL``
findings in one answer) fails validation in the caller's ``Ask``. Either way the citations
this audit made are taken back, so the caller can run the offline auditor instead.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal, Protocol, TypeVar
from uuid import UUID

from pydantic import BaseModel

from regintel.chat.auditing import render
from regintel.chat.engine import Composed
from regintel.chat.llm.audit_plan import (
    Sentence,
    Shown,
    Source,
    Window,
    plan_theme,
    shown_text,
    whole_source,
)
from regintel.chat.llm.audit_prompts import (
    FINDINGS_INPUT,
    FINDINGS_TASK,
    NO_PASSAGES,
    PASSAGE,
    TARGET_HEADING,
    THEMES_INPUT,
    THEMES_TASK,
    WHOLE_TEXT,
    FindingOutput,
    FindingsOutput,
    ThemesOutput,
)
from regintel.chat.llm.citing import best_sentence
from regintel.chat.llm.reports import StepFailed
from regintel.domain.chat import MAX_QUOTE_CHARS, SEVERITY_ORDER, AuditFinding, AuditResult
from regintel.domain.documents import ChunkHit, Document, SearchScope, StoredChunk
from regintel.errors import InvalidRequest
from regintel.obligations.audit_summary import overall_status, summary
from regintel.obligations.auditor import MAX_WORDS  # text mode: the offline engine's bound
from regintel.ports.library import ChunkIndex
from regintel.retrieval.evidence import CitationBook, normalise, quote_around, sentences, verify
from regintel.retrieval.hybrid import MAX_QUERY_CHARS, HybridRetriever
from regintel.retrieval.strategies import stratify

MAX_TARGETS = 5
SAMPLE_SIZE = 10           # policy chunks shown for theme extraction (the spec's 10)
MAX_THEMES = 8
TEXT_PER_TARGET = 5        # text mode: passages per target for the whole text (spec: 3–5)
CONCURRENCY = 8            # findings calls in flight
_EVIDENCE_ID = re.compile(r"^\[?\s*([ST])\s*(\d{1,3})\s*\]?$", re.I)

Out = TypeVar("Out", bound=BaseModel)


class AuditStep(StrEnum):
    EXTRACT_THEMES = "extract_themes"
    AUDIT_FINDINGS = "audit_findings"


class Ask(Protocol):
    """One structured call: ``[system: task, user]``, the answer validated as ``output``.
    Raises ``StepFailed`` (or ``TimeoutError``) when the answer is unusable — the shape of
    ``LlmEngine._ask`` with the step mapped to the engine's own."""

    async def __call__(self, step: AuditStep, task: str, user: str, output: type[Out],
                       /) -> Out: ...


Prepare = Callable[[Sequence[str]], Awaitable[None]]


class AuditUnusable(StepFailed):
    """The model's audit cannot be mapped faithfully; the audit runs on the offline engine."""




# -- the audit --------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Draft:
    theme: str | None
    out: FindingOutput
    target: ChunkHit
    target_quote: str
    source: Source | None
    source_quote: str | None

    @property
    def key(self) -> tuple[UUID, str, str | None]:
        return self.target.chunk_id, normalise(self.target_quote), self.source_quote

    @property
    def rank(self) -> tuple[int, float]:
        return SEVERITY_ORDER.index(self.out.severity), -self.out.confidence_score


async def llm_audit(ask: Ask, *, retriever: HybridRetriever, index: ChunkIndex,
                    tenant_id: UUID, targets: Sequence[Document],
                    source_document: Document | None, source_text: str | None,
                    book: CitationBook, context_tokens: int = 0,
                    evidence_chars: int | None = None,
                    prepare: Prepare | None = None) -> Composed:
    """The audit of ``source_document`` (policy mode) or ``source_text`` (text mode) against
    ``targets``, answered as the offline auditor answers; ``context_tokens``, the audit
    model's context window (0: never show a whole policy); ``prepare``, given once what every
    findings call will send (a whole policy), before the calls go out (the egress guard's
    scan, done once rather than by every call inside its time bound). Raises
    ``InvalidRequest`` for what the offline auditor refuses too,
    ``AuditUnusable``/``StepFailed``/``TimeoutError`` when the model's answers are unusable
    (no citation of this audit is left in ``book``)."""
    if not 1 <= len(targets) <= MAX_TARGETS:
        raise InvalidRequest(f"an audit checks against 1 to {MAX_TARGETS} regulations "
                             f"({len(targets)} given)")
    # ``evidence_chars``: what one findings call may show; a small window plans smaller calls.
    window = Window.for_context(evidence_chars) if evidence_chars is not None else None
    kept = book.checkpoint()
    try:
        if source_document is not None:
            themes, drafts = await _policy(ask, retriever, index, tenant_id, targets,
                                           source_document, context_tokens, prepare,
                                           window, evidence_chars or 0)
            result = _result("policy", drafts, targets, themes, book)
            audited = source_document.title
        elif source_text and source_text.strip():
            drafts = await _text(ask, retriever, tenant_id, targets, source_text.strip(),
                                 window)
            result = _result("text", drafts, targets, None, book)
            audited = "the submitted text"
        else:
            raise InvalidRequest("an audit needs a policy document or a text to check",
                                 hint="tag a company policy, or paste the text to audit")
    except BaseException:
        book.rollback(kept)
        raise
    return Composed(answer=render(result, audited, targets), audit=result)


async def _policy(ask: Ask, retriever: HybridRetriever, index: ChunkIndex, tenant: UUID,
                  targets: Sequence[Document], source: Document, context_tokens: int,
                  prepare: Prepare | None, window: Window | None,
                  evidence_chars: int) -> tuple[list[str], list[_Draft]]:
    chunks = await index.document_chunks(tenant, source.id)
    whole = whole_source(chunks, source, context_tokens, window)
    limit = window.passage_chars if window else None
    if whole and prepare is not None:
        await prepare([_source_passages(whole, limit)])
    sample = _thin(stratify(chunks), min(SAMPLE_SIZE, window.sample(evidence_chars))
                   if window else SAMPLE_SIZE)
    if not sample:
        raise InvalidRequest(f"\"{source.title}\" has no text to audit")
    passages = "\n\n".join(
        PASSAGE.format(id=f"S{n}", where=_where(source.title, c.clause, c.page_start),
                       text=shown_text(c.text, limit)) for n, c in enumerate(sample, 1))
    out = await ask(AuditStep.EXTRACT_THEMES, THEMES_TASK,
                    THEMES_INPUT.format(title=source.title, count=len(sample),
                                        passages=passages), ThemesOutput)
    themes = _themes(out)[:window.themes] if window else _themes(out)
    planned = await asyncio.gather(*(plan_theme(retriever, index, tenant, theme, source,
                                                targets, whole, window) for theme in themes))
    gate = asyncio.Semaphore(CONCURRENCY)

    async def one(shown: Shown) -> list[_Draft]:
        async with gate:
            return await _findings(ask, shown, source.title, targets, limit)

    per_call = await _all([one(shown) for calls in planned for shown in calls])
    return themes, [d for drafts in per_call for d in drafts]


async def _text(ask: Ask, retriever: HybridRetriever, tenant: UUID,
                targets: Sequence[Document], text: str,
                window: Window | None = None) -> list[_Draft]:
    words = len(text.split())
    if words > MAX_WORDS:
        raise InvalidRequest(f"the text to audit has {words} words; text mode takes up to "
                             f"{MAX_WORDS}", hint="upload it as a document instead")
    query = text[:MAX_QUERY_CHARS]
    if len(text) > MAX_QUERY_CHARS:  # cut at a word, the way a person would shorten it
        query = query[:query.rfind(" ")] if " " in query else query
    vector = await retriever.embed_query(query)
    found = await asyncio.gather(*(
        retriever.search(tenant, query, vector=vector, k=TEXT_PER_TARGET if window is None
                         else max(1, min(TEXT_PER_TARGET, window.batch // len(targets))),
                         scope=SearchScope(document_ids=(t.id,))) for t in targets))
    shown = Shown(theme=None,
                   sources=tuple(Sentence(s.strip()) for s in sentences(text) if s.strip()),
                   targets=tuple(h for hits in found for h in hits))
    return await _findings(ask, shown, "the submitted text", targets,
                           window.passage_chars if window else None)


async def _findings(ask: Ask, shown: Shown, source: str, targets: Sequence[Document],
                    limit: int | None = None) -> list[_Draft]:
    if not shown.targets:  # nothing of any target to check against: nothing to ask
        return []
    user = FINDINGS_INPUT.format(theme=shown.theme or WHOLE_TEXT, source=source,
                                 sources=_source_passages(shown.sources, limit),
                                 targets=_target_passages(shown.targets, targets, limit))
    out = await ask(AuditStep.AUDIT_FINDINGS, FINDINGS_TASK, user, FindingsOutput)
    where = f"theme {shown.theme!r}" if shown.theme else "the text"
    return [_draft(f, shown, f"{where}, finding {i}") for i, f in enumerate(out.findings, 1)]


def _draft(out: FindingOutput, shown: Shown, where: str) -> _Draft:
    target = shown.targets[_evidence(out.target_evidence, "T", len(shown.targets), where) - 1]
    source: Source | None = None
    if out.source_evidence is not None and out.source_evidence.strip():
        source = shown.sources[_evidence(out.source_evidence, "S", len(shown.sources),
                                         where) - 1]
    elif out.kind == "conflict":
        raise AuditUnusable(f"{where}: a conflict without the source passage it conflicts with")
    claim = f"{out.requirement} {out.suggestion}"
    target_quote = _quote(target.text, best_sentence(target, out.requirement))
    source_quote = None
    if isinstance(source, ChunkHit):
        source_quote = _quote(source.text, best_sentence(source, claim))
    elif isinstance(source, Sentence):
        source_quote = _quote(source.text, source.text)
    return _Draft(shown.theme, out, target, target_quote, source, source_quote)


def _evidence(value: str, kind: Literal["S", "T"], count: int, where: str) -> int:
    """The number of a shown ``kind`` passage named by ``value`` ("T2", "[t2]"), or
    ``AuditUnusable``."""
    found = _EVIDENCE_ID.match(value.strip())
    if found is None or found.group(1).upper() != kind:
        side = "TARGET" if kind == "T" else "SOURCE"
        raise AuditUnusable(f"{where}: {value[:20]!r} is not a {side} passage id")
    n = int(found.group(2))
    if not 1 <= n <= count:
        raise AuditUnusable(f"{where}: cites {kind}{n}, which was not shown")
    return n


def _result(mode: Literal["text", "policy"], drafts: Sequence[_Draft],
            targets: Sequence[Document], themes: list[str] | None,
            book: CitationBook) -> AuditResult:
    """Findings deduplicated (a passage found under two themes is reported once, gravest),
    grouped by target in the order given, then by severity, surest first; cited in that
    order, so the answer's citation numbers read in order."""
    best: dict[tuple[UUID, str, str | None], _Draft] = {}
    for draft in drafts:
        held = best.get(draft.key)
        if held is None or draft.rank < held.rank:
            best[draft.key] = draft
    order = {t.id: i for i, t in enumerate(targets)}
    ordered = sorted(best.values(), key=lambda d: (order[d.target.document_id], d.rank))
    titles = {t.id: t.title for t in targets}
    findings = [f for d in ordered if (f := _cite(d, titles, book)) is not None]
    return AuditResult(mode=mode, overall_status=overall_status(findings), findings=findings,
                       summary=summary(findings, targets, themes or (),
                                       what="policy" if mode == "policy" else "text"),
                       targets_checked=len(targets),
                       themes_analyzed=len(themes) if themes is not None else None)


def _cite(draft: _Draft, titles: dict[UUID, str], book: CitationBook) -> AuditFinding | None:
    """The finding with its verified citations (the target's, then the policy's), or None
    when a quote does not verify (the book counts it as dropped)."""
    mark = book.checkpoint()
    numbers = [book.cite(draft.target, draft.target_quote)]
    if isinstance(draft.source, ChunkHit) and draft.source_quote is not None:
        numbers.append(book.cite(draft.source, draft.source_quote))
    elif isinstance(draft.source, Sentence) and draft.source_quote is not None and \
            not verify(draft.source_quote, draft.source.text):  # the pasted text: no chunk
        numbers.append(None)
    cited = [n for n in numbers if n is not None]
    if len(cited) < len(numbers):
        book.rollback(mark)
        return None
    out, target = draft.out, draft.target
    return AuditFinding(
        target_doc_id=target.document_id, target_doc_title=titles[target.document_id],
        theme=draft.theme, kind=out.kind, severity=out.severity,
        consequence=" ".join(out.consequence.split()), source_quote=draft.source_quote,
        target_quote=draft.target_quote, target_clause=target.clause,
        target_page=target.page_start if target.paged else None,
        suggestion=" ".join(out.suggestion.split()),
        confidence_score=round(out.confidence_score, 3), citations=cited)


# -- helpers ----------------------------------------------------------------------------------
def _themes(out: ThemesOutput) -> list[str]:
    """The distinct themes (case and spacing aside), at most ``MAX_THEMES``."""
    seen: dict[str, str] = {}
    for theme in out.themes:
        text = " ".join(theme.split()).strip(" .;:,-\"'")
        if text and text.lower() not in seen:
            seen[text.lower()] = text
    if not seen:
        raise AuditUnusable("no usable theme")
    return list(seen.values())[:MAX_THEMES]


def _quote(text: str, sentence: str) -> str:
    """The verbatim quote around ``sentence`` of ``text`` (``quote_sentence`` cuts a chunk's
    the same way: up to three sentences within ``MAX_QUOTE_CHARS``)."""
    at = text.find(sentence)
    return quote_around(text, max(at, 0), max_chars=MAX_QUOTE_CHARS)


def _thin(chunks: Sequence[StoredChunk], n: int) -> list[StoredChunk]:
    """``n`` of ``chunks`` spread evenly (the stratified sample may hold up to 30)."""
    if len(chunks) <= n:
        return list(chunks)
    return [chunks[int((i + 0.5) * len(chunks) / n)] for i in range(n)]


def _where(title: str, clause: str | None, page: int) -> str:
    return f"{title}" + (f", clause {clause}" if clause else "") + f", p. {page}"


def _source_passages(sources: Sequence[Source], limit: int | None = None) -> str:
    items = []
    for n, source in enumerate(sources, 1):
        if isinstance(source, ChunkHit):
            items.append(PASSAGE.format(id=f"S{n}", text=shown_text(source.text, limit),
                                        where=_where(
                source.document_title, source.clause, source.page_start)))
        else:
            items.append(f"[S{n}] {source.text}")
    return "\n\n".join(items) or NO_PASSAGES


def _target_passages(hits: Sequence[ChunkHit], targets: Sequence[Document],
                     limit: int | None = None) -> str:
    """The passages under their regulation's heading, numbered on across regulations (the
    hits come grouped by target, in the order of ``targets``)."""
    blocks = []
    for target in targets:
        mine = [(n, h) for n, h in enumerate(hits, 1) if h.document_id == target.id]
        heading = TARGET_HEADING.format(title=target.title, version=f" ({target.version})"
                                        if target.version else "")
        blocks.append("\n\n".join([heading, *(
            PASSAGE.format(id=f"T{n}", text=shown_text(h.text, limit),
                           where=_where(h.document_title, h.clause, h.page_start))
            for n, h in mine)] if mine else [heading, NO_PASSAGES]))
    return "\n\n".join(blocks)


async def _all(calls: Sequence[Awaitable[list[_Draft]]]) -> list[list[_Draft]]:
    """Every call's result, or the first failure with the other calls cancelled (a failed
    theme fails the audit: there is no use paying for the rest)."""
    tasks = [asyncio.ensure_future(call) for call in calls]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
