"""Verbatim quotes for the matrix: a span of a rebuilt page cut to the one stored chunk that
holds most of it, at most MAX_QUOTE_CHARS, whitespace normalised (the quote checks normalise
it too), and checked against that chunk's text before it is returned."""

from __future__ import annotations

from regintel.domain.chat import MAX_QUOTE_CHARS
from regintel.domain.coverage import PolicyQuote
from regintel.domain.documents import StoredChunk
from regintel.obligations.pages import Page
from regintel.obligations.policy_text import PolicyUnit
from regintel.retrieval.evidence import verify


def cut_quote(text: str) -> str:
    """``text`` whitespace-normalised and cut on a word to MAX_QUOTE_CHARS: still verbatim."""
    text = " ".join(text.split())
    if len(text) <= MAX_QUOTE_CHARS:
        return text
    cut = text[:MAX_QUOTE_CHARS]
    return cut[:cut.rfind(" ")] if " " in cut else cut


def quote_span(page: Page, start: int, end: int) -> tuple[StoredChunk, str] | None:
    best: tuple[int, StoredChunk] | None = None
    for chunk in page.chunks:
        overlap = min(end, chunk.char_start + len(chunk.text)) - max(start, chunk.char_start)
        if overlap > 0 and (best is None or overlap > best[0]):
            best = (overlap, chunk)
    if best is None:
        return None
    chunk = best[1]
    a, b = max(start, chunk.char_start), min(end, chunk.char_start + len(chunk.text))
    text = cut_quote(page.text[a:b])
    if not text or not verify(text, chunk.text):
        return None
    return chunk, text


def policy_quote(unit: PolicyUnit, score: float) -> PolicyQuote | None:
    found = quote_span(unit.page, unit.start, unit.end)
    if found is None:
        return None
    chunk, text = found
    return PolicyQuote(document_id=chunk.document_id, chunk_id=chunk.id, quote=text,
                       clause=chunk.clause, section=chunk.section_at(unit.start - chunk.char_start),
                       page=unit.page.number, score=round(min(1.0, max(0.0, score)), 4))
