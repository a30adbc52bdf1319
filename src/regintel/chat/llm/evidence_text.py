"""How evidence is shown to the model: each hit numbered with its document, clause and pages
(and the lead-in or opening it continues), an inquiry's best hits under the question, a
report's hits under each document's heading."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from regintel.chat.llm import prompts as p
from regintel.chat.llm.reports import Numbered
from regintel.chat.offline import guided_rule
from regintel.chat.offline.compose import asks_requirements
from regintel.domain.documents import ChunkHit, Document
from regintel.retrieval.evidence import content_words, sentences
from regintel.retrieval.list_context import retrieved

MAX_EVIDENCE = 8  # hits shown to the model, best first
SHORT_ITEM_CHARS = 400  # an evidence item's text shown to a small model


def inquiry_input(question: str, hits: Sequence[ChunkHit], budget_chars: int | None = None,
                  *, short: bool = False) -> tuple[list[ChunkHit], str]:
    """The evidence shown to the model (the best hits searched; the chunks fetched to show a
    list whole are for the offline composition) and the user message carrying it. Asked
    what is required, when the best hit is a rule's guidance, the chunks holding that rule
    come first (``guided_rule``): the model is shown what the regulator demands, not only
    what it suggests."""
    top = sorted(retrieved(hits), key=lambda h: -h.score)[:MAX_EVIDENCE]
    if asks_requirements(question):
        top = guided_rule.rule_chunks(top, hits) + top
    # A small model copies a long passage instead of answering from it: it is shown the
    # passage's sentences that matter; the hit itself (what is quoted) stays whole.
    shown = [hit.model_copy(update={"text": shortened(hit.text, question)}) if short else hit
             for hit in top]
    if budget_chars is not None:  # a small window: the best that fit, at least the best one
        shown = fit(shown, budget_chars - len(question))
        top = top[:len(shown)]
    user = p.INQUIRY_INPUT.format(question=question, evidence="\n\n".join(
        evidence_item(n, hit) for n, hit in enumerate(shown, 1)))
    return top, user + (p.QUESTION_AGAIN.format(question=question) if short else "")


def shortened(text: str, question: str, max_chars: int = SHORT_ITEM_CHARS) -> str:
    """``text`` cut to its first and last sentences (a list's lead-in and the words that
    close it, where a rule's condition or period often is) and those sharing most words
    with ``question``, in their order, gaps shown as " … "."""
    spans = sentences(text)
    if len(text) <= max_chars or len(spans) < 3:
        return text
    wanted = content_words(question)
    middle = sorted(range(1, len(spans) - 1),
                    key=lambda i: -len(wanted & content_words(spans[i])))
    ranked = [0, len(spans) - 1, *middle]
    chosen: list[int] = []
    used = 0
    for i in ranked:
        size = len(spans[i].strip()) + 3
        if chosen and used + size > max_chars:
            continue
        chosen.append(i)
        used += size
    out: list[str] = []
    prev = -1
    for i in sorted(chosen):
        if out and i != prev + 1:
            out.append("…")
        out.append(" ".join(spans[i].split()))
        prev = i
    return " ".join(out)


def evidence_item(n: int, hit: ChunkHit) -> str:
    clause = f", clause {hit.clause}" if hit.clause else ""
    pages = f"p. {hit.page_start}" if hit.page_end == hit.page_start else \
        f"pp. {hit.page_start}-{hit.page_end}"
    before = " … ".join(w for w in (hit.lead_in, hit.opening) if w)
    return p.EVIDENCE_ITEM.format(n=n, title=hit.document_title, clause=clause,
                                  page=f", {pages}" if hit.paged else "", text=hit.text,
                                  before=p.EVIDENCE_BEFORE.format(words=before) if before else "")


def numbered_evidence(documents: Sequence[Document], numbered: Numbered) -> str:
    """The numbered evidence under each document's heading (documents without any are left
    out: the model is asked only about what it is shown)."""
    blocks: list[str] = []
    labels = numbered.labels
    for document in documents:
        items = numbered.items(document.id)
        if not items:
            continue
        heading = p.DOCUMENT_HEADING.format(
            id=labels[document.id], title=document.title, doc_type=document.doc_type.value,
            version=f", {document.version}" if document.version else "")
        blocks.append("\n\n".join([heading, *(evidence_item(n, hit) for n, hit in items)]))
    return "\n\n".join(blocks)


def item_chars(hit: ChunkHit) -> int:
    return len(evidence_item(99, hit)) + 2


def fit(ranked: Sequence[ChunkHit], budget_chars: int) -> list[ChunkHit]:
    """The leading hits of ``ranked`` whose evidence text fits ``budget_chars`` (the first
    always: an answer needs something to stand on)."""
    kept: list[ChunkHit] = []
    used = 0
    for hit in ranked:
        used += item_chars(hit)
        if kept and used > budget_chars:
            break
        kept.append(hit)
    return kept


def fit_numbered(documents: Sequence[Document], evidence: dict[UUID, list[ChunkHit]], *,
                 per_document: int, best_first: bool, budget_chars: int) -> Numbered:
    """``Numbered.of`` with as many hits per document as fit ``budget_chars``: the best ones
    (a focused comparison), or spread evenly over each document (a sample in document order,
    so a summary still covers the whole of it)."""
    numbered = Numbered.of(documents, evidence, per_document=per_document,
                           best_first=best_first)
    if sum(map(item_chars, numbered.hits)) <= budget_chars:
        return numbered
    for n in range(per_document - 1, 0, -1):
        chosen = {d: _take(hits, n, best_first) for d, hits in evidence.items()}
        numbered = Numbered.of(documents, chosen, per_document=n, best_first=best_first)
        if sum(map(item_chars, numbered.hits)) <= budget_chars:
            break
    return numbered


def _take(hits: list[ChunkHit], n: int, best_first: bool) -> list[ChunkHit]:
    if best_first:
        return sorted(hits, key=lambda h: -h.score)[:n]
    if len(hits) <= n:
        return hits
    return [hits[int((i + 0.5) * len(hits) / n)] for i in range(n)]
