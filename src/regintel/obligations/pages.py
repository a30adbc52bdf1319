"""A document's text read back from its stored chunks: each chunk is an exact slice of one
page's text (ingestion.chunking), so the pages are rebuilt by laying the chunks at their
offsets, and any span of a page is mapped back to the chunks holding it. Obligations are
extracted from these pages, never from the original file: every quote the register keeps is
then verbatim in stored text."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

from regintel.domain.documents import StoredChunk


@dataclass(frozen=True)
class Page:
    number: int
    text: str  # characters no chunk covers (whitespace between chunks) are spaces
    chunks: tuple[StoredChunk, ...]  # in order of char_start

    def chunks_of(self, start: int, end: int) -> tuple[UUID, ...]:
        """The chunks overlapping ``text[start:end]``, the one holding it whole first."""
        whole = [c.id for c in self.chunks if c.char_start <= start and end <= c.char_end]
        touching = [c.id for c in self.chunks if c.char_start < end and start < c.char_end
                    and c.id not in whole]
        return tuple(whole[:1] + touching) if whole else tuple(touching)

    def chunk_at(self, offset: int) -> StoredChunk | None:
        for chunk in self.chunks:
            if chunk.char_start <= offset < chunk.char_end:
                return chunk
        return None


def rebuild_pages(chunks: Sequence[StoredChunk]) -> list[Page]:
    """The pages of a document from its chunks, in page order."""
    by_page: dict[int, list[StoredChunk]] = {}
    for chunk in chunks:
        by_page.setdefault(chunk.page_start, []).append(chunk)
    pages = []
    for number in sorted(by_page):
        placed = sorted(by_page[number], key=lambda c: (c.char_start, c.ordinal))
        length = max(c.char_start + len(c.text) for c in placed)
        buffer = [" "] * length
        for chunk in placed:
            buffer[chunk.char_start:chunk.char_start + len(chunk.text)] = chunk.text
        pages.append(Page(number, "".join(buffer), tuple(placed)))
    return pages


def within_one_chunk(page: Page, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` lies whole in one stored chunk (a quote that verifies)."""
    return any(c.char_start <= start and end <= c.char_start + len(c.text) for c in page.chunks)
