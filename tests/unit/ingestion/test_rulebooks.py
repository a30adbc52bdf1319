"""Chunking the real ADGM rulebooks (shared data set beside the repository)."""

from __future__ import annotations

from bisect import bisect_right
from pathlib import Path

import pytest

from regintel.domain.documents import ParsedDocument, ParsedPage
from regintel.ingestion import chunk_document, find_clauses

RULEBOOKS = (Path(__file__).resolve().parents[3].parent
             / "shared" / "data" / "obliqa" / "rulebooks_txt")
COBS = RULEBOOKS / "COBS_VER15.150823.txt"

needs_rulebooks = pytest.mark.skipif(
    not COBS.is_file(), reason=f"ADGM rulebooks not found at {RULEBOOKS} (shared data set)")


def load(path: Path) -> ParsedDocument:
    text = path.read_text(encoding="utf-8-sig").replace("\r\n", "\n")
    return ParsedDocument(mime_type="text/plain", pages=(ParsedPage(number=1, text=text),))


@needs_rulebooks
def test_cobs_chunks_are_exact_and_follow_its_clauses() -> None:
    doc = load(COBS)
    text = doc.pages[0].text
    markers = find_clauses(text)
    labels = {label for _, label in markers}
    assert {"1", "2", "2.1.3", "2.1.3.Guidance", "2.1.3.Guidance.1", "2.2.1"} <= labels

    chunks = chunk_document(doc)
    assert len(chunks) > 400
    assert chunks[0].clause == "1"
    offsets = [offset for offset, _ in markers]
    position = []
    for c in chunks:
        assert text[c.char_start:c.char_end] == c.text
        assert len(c.text) <= 1000
        assert c.clause in labels
        # The label is the last marker with that name that starts before the chunk ends.
        before_end = markers[:bisect_right(offsets, c.char_end)]
        position.append(max(o for o, label in before_end if label == c.clause))
    assert position == sorted(position), "clause labels must move forward through the book"
    assert sum(len(c.text) >= 500 for c in chunks) / len(chunks) > 0.95


@needs_rulebooks
def test_all_rulebooks_chunk() -> None:
    # How fast is for `regintel bench ingest` to say, not for a timed test.
    docs = [load(path) for path in sorted(RULEBOOKS.glob("*.txt"))]
    chunks = [chunk_document(doc) for doc in docs]
    assert len(docs) >= 40
    assert sum(map(len, chunks)) > 5000
