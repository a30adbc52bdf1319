"""A summary with a focus ("the regulation's rules on breach notification"): per document, the
provision that answers the focus best opens it, then the other provisions on the focus in the
document's own order, and a line saying which provisions were read and on what.

A whole-document summary looks for what is central to the document; a focused one must stay
on its focus, so its sentences are ranked by their closeness to the focus (and how relevant
retrieval found their passage, as an inquiry's are), binding rules before guidance."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from regintel.chat.engine import Composed
from regintel.chat.offline.ranking import Kept, Sentence, mmr, query_and_sentences, sentences_of
from regintel.domain.chat import Statement, SummaryResult, SummarySection
from regintel.domain.documents import ChunkHit, Document
from regintel.ports.embedder import Embedder
from regintel.retrieval.evidence import CitationBook, markers

FOCUS_POINTS = 6
# A sentence on the focus is shown when within this much of the best (the inquiry's margin,
# a little wider: a summary gathers more than an answer does).
FOCUS_MARGIN = 0.25
# Unlike an inquiry's, a sentence's relevance is its closeness to the focus alone: a summary's
# passages come from a fixed depth per document and the passages they cite, whose retrieval
# scores say little about their sentences (the due-diligence rule cited by a reporting chapter's
# guidance outranked the reporting rules themselves).
BINDING_BONUS = 0.03  # a rule states the duty a summary is about; its guidance explains it
# The opening is the closest rule among the sentences shown, guidance only without one: a
# summary of what is required opens on a requirement (dev scenarios, 2026-12-07: a guidance
# note on ongoing due diligence had opened the enhanced due diligence summary; at 0.05, 45 of
# 63 passed, 46 at the focus margin).
OPENING_MARGIN = FOCUS_MARGIN


async def summary(embedder: Embedder, focus: str, documents: Sequence[Document],
                  evidence: dict[UUID, list[ChunkHit]], book: CitationBook, *,
                  kept: Kept | None = None) -> Composed:
    sections: list[SummarySection] = []
    lines: list[str] = []
    for document in documents:
        candidates = [s for s in sentences_of(evidence.get(document.id, []), per_chunk=8)
                      if s.is_statement and not s.is_heading]
        heading = document.title + (f" ({document.version})" if document.version else "")
        lines += [f"## {heading}", ""]
        if not candidates:
            text = f"The document says nothing found on {focus}."
            sections.append(SummarySection(document_id=document.id, title=document.title,
                                           overview=text))
            lines += [text, ""]
            continue
        query, matrix = await query_and_sentences(embedder, focus, candidates, kept)
        similarity = matrix @ query
        relevance = [float(similarity[i]) + BINDING_BONUS * s.binds
                     for i, s in enumerate(candidates)]
        best = max(relevance)
        chosen = [i for i in mmr(relevance, matrix, FOCUS_POINTS + 1, diversity=0.4)
                  if relevance[i] >= best - FOCUS_MARGIN]
        # The opening states a duty when one is on the focus: the rule before its guidance.
        opening = next((i for i in chosen if candidates[i].binds
                        and relevance[i] >= relevance[chosen[0]] - OPENING_MARGIN), chosen[0])
        rest = sorted((i for i in chosen if i != opening), key=lambda i: _place(candidates[i]))
        statements = [_cite(book, candidates[i]) for i in [opening, *rest]]
        overview, *points = statements
        key = [st for st in points if st is not None]
        sections.append(SummarySection(document_id=document.id, title=document.title,
                                       overview=f"{overview.text} "
                                       f"{markers(overview.citations)}" if overview else "",
                                       key_obligations=key))
        if overview:
            lines += [f"Overview: {overview.text} {markers(overview.citations)}", ""]
        if key:
            lines += [f"On {focus}:"] + [f"- {st.text} {markers(st.citations)}" for st in key]
            lines += [""]
        lines += [_coverage(book, [candidates[i] for i in chosen], len(candidates), focus), ""]
    return Composed(answer="\n".join(lines).strip(), summary=SummaryResult(sections=sections))


def _place(sentence: Sentence) -> tuple[int, int]:
    return sentence.hit.ordinal, sentence.position


def _cite(book: CitationBook, sentence: Sentence) -> Statement | None:
    n = book.cite_sentence(sentence.hit, sentence.text)
    return Statement(text=sentence.shown, citations=[n]) if n is not None else None


def _coverage(book: CitationBook, shown: Sequence[Sentence], read: int, focus: str) -> str:
    """Which provisions the summary shows, of how many sentences read on the focus: what was
    checked, so the user knows what was not."""
    clauses: list[str] = []
    for citation in book.citations:
        if citation.clause and citation.clause not in clauses and any(
                citation.chunk_id == s.hit.chunk_id for s in shown):
            clauses.append(citation.clause)
    where = f" ({', '.join(clauses)})" if clauses else ""
    return (f"Coverage: {len(shown)} provisions{where}, chosen from {read} sentences of the "
            f"passages retrieved on {focus}; other parts of the document were not read.")
