"""Offline comparison. Focused (one topic): the best statement of each document on the topic,
side by side, with the figures each commits to. Holistic: each document's key statements
aligned across documents by meaning — close pairs are similarities (or differences when their
figures or modal verbs disagree), statements with no counterpart are unique to their document."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

import numpy as np

from regintel.chat.engine import Composed
from regintel.chat.offline import compare_focused, compare_pairing
from regintel.chat.offline.compose import HEADING_PENALTY, bullet, cite
from regintel.chat.offline.ranking import (
    Kept,
    Matrix,
    Sentence,
    figures,
    mmr,
    pointers,
    query_and_sentences,
    sentences_of,
)
from regintel.domain.chat import ComparisonResult, Statement
from regintel.domain.documents import ChunkHit, Document
from regintel.ports.embedder import Embedder
from regintel.retrieval.evidence import CitationBook

ALIGNED = 0.62      # cosine above which two statements speak about the same thing
UNRELATED = 0.42    # cosine below which a statement has no counterpart
KEY_STATEMENTS = 6
MAX_CHUNKS = 12


def _comparable(sentence: Sentence) -> bool:
    """A statement, or a list's item shown after the list's lead-in: "… must maintain the
    following records: … any other matter …, for at least six years …" is the rulebook's
    record-keeping period, though its item starts in lower case."""
    return not (sentence.is_heading or sentence.is_definition
                or (sentence.is_fragment and not sentence.lead_in))


def _disagree(a: Sentence, b: Sentence) -> bool:
    return compare_focused.disagree([a, b])


async def compare(embedder: Embedder, question: str, documents: Sequence[Document],
                  evidence: dict[UUID, list[ChunkHit]], topic: str | None,
                  book: CitationBook, *, kept: Kept | None = None) -> Composed:
    per_doc = {d.id: [s for s in sentences_of(
        sorted(evidence.get(d.id, []), key=lambda h: -h.score)[:MAX_CHUNKS]) if _comparable(s)]
        for d in documents}
    flat = [(doc_id, s) for doc_id, items in per_doc.items() for s in items]
    if not flat:
        return Composed(answer="The selected documents returned no comparable passages.")
    query, matrix = await query_and_sentences(embedder, topic or question,
                                              [s for _, s in flat], kept)
    index = {id(s): i for i, (_, s) in enumerate(flat)}
    if topic:
        return await _focused(embedder, documents, per_doc, matrix, query, index, topic, book,
                              kept)
    return _holistic(documents, per_doc, matrix, query, index, book)


def _fit(items: list[Sentence], matrix: Matrix, query: Matrix,
         index: dict[int, int]) -> list[float]:
    """How well each statement answers the topic. A statement with figures is what a
    difference table is for: preferred slightly; a pointer to a section whose text is at
    hand gives way to that text."""
    pointing = pointers(items)
    return [float(matrix[index[id(s)]] @ query) + 0.1 * bool(figures(s.text))
            - HEADING_PENALTY * points for s, points in zip(items, pointing, strict=True)]


async def _focused(embedder: Embedder, documents: Sequence[Document],
                   per_doc: dict[UUID, list[Sentence]], matrix: Matrix, query: Matrix,
                   index: dict[int, int], topic: str, book: CitationBook,
                   kept: Kept | None) -> Composed:
    on_topic = {d.id: list(zip(per_doc[d.id], _fit(per_doc[d.id], matrix, query, index),
                               strict=True)) for d in documents}
    vector_of = {id(s): matrix[index[id(s)]] for items in per_doc.values() for s in items}
    chosen = compare_focused.choose(documents, on_topic, vector_of)
    # Where each chosen provision stands, for pairing only provisions on one subject (when
    # there is anything to pair).
    places = await compare_pairing.place_vectors(
        embedder, [s for items in chosen.points.values() for s in items], kept) \
        if sum(bool(items) for items in chosen.points.values()) > 1 else {}
    return compare_focused.compare(documents, on_topic, vector_of, topic, book,
                                   place_vector=places, chosen=chosen)


def _holistic(documents: Sequence[Document], per_doc: dict[UUID, list[Sentence]], matrix: Matrix,
              query: Matrix, index: dict[int, int], book: CitationBook) -> Composed:
    key: dict[UUID, list[Sentence]] = {}
    for document in documents:
        items = per_doc[document.id]
        if not items:
            key[document.id] = []
            continue
        rows = matrix[[index[id(s)] for s in items]]
        # Holistic: what the document requires matters most, so obligations come first.
        relevance = [float(v) + 0.2 * s.is_obligation for v, s in zip(rows @ query, items,
                                                                        strict=True)]
        key[document.id] = [items[i] for i in mmr(relevance, rows, KEY_STATEMENTS, diversity=0.5)]
    titles = {d.id: d.title for d in documents}
    differences: list[Statement] = []
    similarities: list[Statement] = []
    unique: dict[str, list[Statement]] = {}
    paired: set[int] = set()
    first, *others = documents
    for a in key[first.id]:
        for other in others:
            match, score = _counterpart(a, key[other.id], matrix, index)
            if match is None or score < ALIGNED:
                continue
            paired.update({id(a), id(match)})
            sa, sb = cite(book, a), cite(book, match)
            numbers = [n for st in (sa, sb) if st for n in st.citations]
            if _disagree(a, match):
                differences.append(Statement(
                    text=f"{titles[first.id]}: {a.shown} — {titles[other.id]}: {match.shown}",
                    citations=numbers))
            else:
                similarities.append(Statement(
                    text=f"Both {titles[first.id]} and {titles[other.id]} address this: "
                         f"{a.shown}", citations=numbers))
    for document in documents:
        alone = []
        for s in key[document.id]:
            if id(s) in paired:
                continue
            rivals = [x for d, items in key.items() if d != document.id for x in items]
            _, score = _counterpart(s, rivals, matrix, index)
            if score < UNRELATED and (st := cite(book, s)) is not None:
                alone.append(st)
        unique[str(document.id)] = alone
    implications = _implications(differences, unique, titles)
    overview = (f"{len(documents)} documents compared: {', '.join(titles.values())}. "
                f"{len(similarities)} shared provisions, {len(differences)} differences, "
                f"{sum(len(v) for v in unique.values())} provisions unique to one document.")
    result = ComparisonResult(mode="holistic", overview=overview, differences=differences,
                              similarities=similarities, unique=unique,
                              implications=implications)
    return Composed(answer=_render(result, titles), comparison=result)


def _counterpart(s: Sentence, items: list[Sentence], matrix: Matrix,
                 index: dict[int, int]) -> tuple[Sentence | None, float]:
    if not items:
        return None, 0.0
    scores = [float(matrix[index[id(s)]] @ matrix[index[id(x)]]) for x in items]
    best = int(np.argmax(scores))
    return items[best], scores[best]


def _implications(differences: list[Statement], unique: dict[str, list[Statement]],
                  titles: dict[UUID, str]) -> list[Statement]:
    notes: list[Statement] = []
    if differences:
        notes.append(Statement(
            text="Where the documents set different figures or obligations, a firm subject to "
                 "both should apply the stricter requirement and record the basis.",
            citations=[n for st in differences for n in st.citations][:4]))
    for doc_id, items in unique.items():
        if items:
            notes.append(Statement(
                text=f"Provisions found only in {titles[UUID(doc_id)]} need their own controls; "
                     "the other documents do not cover them.",
                citations=[n for st in items for n in st.citations][:3]))
    return notes


def _render(result: ComparisonResult, titles: dict[UUID, str]) -> str:
    lines = ["## Overview", result.overview, ""]
    for heading, items in (("Key differences", result.differences),
                           ("Similarities", result.similarities)):
        lines += [f"## {heading}"] + ([bullet(s) for s in items] or ["- None identified."])
        lines.append("")
    lines.append("## Unique to each document")
    for doc_id, items in result.unique.items():
        lines.append(f"{titles[UUID(doc_id)]}:")
        lines += [bullet(s) for s in items] or ["- Nothing unique identified."]
    lines += ["", "## Implications"] + [bullet(s) for s in result.implications]
    return "\n".join(lines).strip()
