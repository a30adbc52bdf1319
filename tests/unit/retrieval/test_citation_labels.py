"""Every citation is labelled with the clause that holds its quoted words (issue 49): each
sentence of every chunk of the four regulations the answer scenarios run on (the ADGM AML,
GEN and COBS rulebooks and the GDPR), parsed and chunked as ingestion does, read with the
chunks before it as retrieval reads it, and cited as an answer cites it."""

from __future__ import annotations

import asyncio
import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from uuid import UUID, uuid4

import pytest

from regintel.adapters.parsers import AutoParser
from regintel.demo.corpus import DEMO_CORPUS
from regintel.domain.documents import ChunkHit, DocType, ParsedDocument, StoredChunk
from regintel.ingestion import chunk_document
from regintel.retrieval import preceding
from regintel.retrieval.evidence import CitationBook, sentences
from tests.unit.ingestion.test_rulebooks import COBS, needs_rulebooks

SHARED = COBS.parents[2]
# The scenario corpus's regulations (regintel.bench.scenario_corpus) as the demo uploads them.
SOURCES = {"AML": "AML_VER09.211223.txt", "GEN": "GEN_VER08.181223.txt",
           "GDPR": "gdpr_2016_679.md"}

# Where a clause starts, read from the layout of these documents rather than by the clause
# parser under test: a rulebook paragraph starts its line with its number, then a tab
# ("A1.1.Guidance.3.\t…", "9.5.1.(1) \t…", "APP1\tBEST PRACTICE…"), a heading is a number
# alone on its line ("2.4.4.Individuals."), and numbers inside a table are cells. In the
# Markdown GDPR every article and chapter is a heading ("## Article 6 Lawfulness of …").
_NUMBERED_LINE = re.compile(r"^[ ]*((?:[A-Z]{1,3})?\d[^\t\n]*?)[ ]*(?:\t|$)", re.MULTILINE)
_HEADING = re.compile(r"^#{1,6}[ \t]+([^\n]*?)[ \t#]*$", re.MULTILINE)
_NUMBERED_HEADING = re.compile(r"(?:Article|Chapter)[ ]+\w+(?=[ \t]|$)")
_TABLE = re.compile(r"^/Table Start.*?^/Table End", re.MULTILINE | re.DOTALL)
_AFTER_DOT = re.compile(r"\.\s+")


def clause_lines(text: str) -> list[tuple[int, str]]:
    """(offset, number) of each line of ``text`` that starts a clause, in order."""
    tables = [m.span() for m in _TABLE.finditer(text)]
    found = [(m.start(1), m[1]) for m in _NUMBERED_LINE.finditer(text)
             if not any(a <= m.start() < b for a, b in tables)]
    for m in _HEADING.finditer(text):  # the heading is its number ("Article 6"), else its text
        number = _NUMBERED_HEADING.match(m[1])
        found.append((m.start(), number[0] if number else m[1]))
    # A number is written as the citations write it: "21.3.4. Guidance.1." is 21.3.4.Guidance.1.
    return sorted((at, _AFTER_DOT.sub(".", " ".join(number.split())).rstrip("."))
                  for at, number in found)


class Layout:
    """The clause lines of a parsed document, page by page."""

    def __init__(self, parsed: ParsedDocument) -> None:
        self.lines = {page.number: clause_lines(page.text) for page in parsed.pages}
        self.offsets = {n: [at for at, _ in found] for n, found in self.lines.items()}

    def in_effect(self, page: int, offset: int) -> str | None:
        """The number of the last clause line at or before ``offset`` of ``page``: a clause
        runs on over page breaks."""
        i = bisect_right(self.offsets[page], offset)
        if i:
            return self.lines[page][i - 1][1]
        earlier = [found for n, found in self.lines.items() if n < page and found]
        return earlier[-1][-1][1] if earlier else None

    def inside(self, page: int, start: int, end: int) -> set[str]:
        return {label for at, label in self.lines[page] if start <= at < end}


@dataclass(frozen=True)
class Quoted:
    document: str
    ordinal: int  # of the chunk the quote is cut from
    quote: str
    given: str | None  # the citation's label
    expected: str | None  # the number of the last clause line at or before the quote's start


class _Index:
    """The chunks before each chunk, as the Postgres index gives them (``preceding``)."""

    def __init__(self, hits: Sequence[ChunkHit]) -> None:
        self.at = {hit.chunk_id: i for i, hit in enumerate(hits)}
        self.stored = [StoredChunk(**h.model_dump(include=set(StoredChunk.model_fields) - {"id"}),
                                   id=h.chunk_id) for h in hits]

    async def preceding(self, tenant_id: UUID, chunk_ids: Sequence[UUID],
                        depth: int) -> dict[UUID, list[StoredChunk]]:
        return {i: self.stored[max(0, self.at[i] - depth):self.at[i]] for i in chunk_ids}


@cache
def ingested(key: str) -> tuple[Layout, tuple[ChunkHit, ...]]:
    """``key``'s layout, and its chunks as retrieval hands them to an answer: parsed and
    chunked as ingestion does, each read with the chunks before it."""
    if key == "COBS":
        title, parsed = "ADGM COBS", AutoParser().parse(COBS.read_bytes(), COBS.name)
    else:
        doc = next(d for d in DEMO_CORPUS if d.filename == SOURCES[key])
        title, parsed = doc.title, AutoParser().parse(doc.read(SHARED), doc.filename)
    document = uuid4()
    hits = [ChunkHit(**c.model_dump(), chunk_id=uuid4(), document_id=document,
                     document_title=title, document_version="1", doc_type=DocType.REGULATION,
                     score=0.5, paged=parsed.paged) for c in chunk_document(parsed)]
    read = asyncio.run(preceding.attach(_Index(hits), uuid4(), hits))  # type: ignore[arg-type]
    return Layout(parsed), tuple(read)


@cache
def quoted(key: str) -> tuple[Quoted, ...]:
    """Each sentence of each chunk of ``key``, cited as an answer cites it."""
    layout, hits = ingested(key)
    by_id = {hit.chunk_id: hit for hit in hits}
    out: list[Quoted] = []
    for hit in hits:
        for sentence in sentences(hit.text):
            book = CitationBook()
            assert book.cite_sentence(hit, sentence) is not None, sentence
            cited = book.citations[0]
            assert cited.chunk_id is not None
            source = by_id[cited.chunk_id]  # the chunk before, for a sentence cut by a chunk
            words = re.search(r"\s+".join(map(re.escape, cited.quote.split())), source.text)
            assert words is not None
            expected = layout.in_effect(source.page_start, source.char_start + words.start())
            out.append(Quoted(key, source.ordinal, cited.quote, cited.clause, expected))
    return tuple(out)


KEYS = ["AML", "GEN", "COBS", "GDPR"]


@needs_rulebooks
@pytest.mark.parametrize("key", KEYS)
def test_every_quote_is_labelled_with_the_clause_that_holds_it(key: str) -> None:
    found = quoted(key)
    assert len(found) > 1000
    wrong = [q for q in found if q.given != q.expected]
    shown = "\n".join(f"chunk {q.ordinal}: {q.quote[:60]!r} labelled {q.given!r}, "
                      f"held by {q.expected!r}" for q in wrong[:15])
    if wrong:
        pytest.fail(f"{len(wrong)} of {len(found)} quotes of {key} mislabelled:\n{shown}")


@needs_rulebooks
@pytest.mark.parametrize("key", KEYS)
def test_every_chunk_is_filed_under_a_clause_it_holds_or_runs_on_in(key: str) -> None:
    """Ingestion names a chunk after a clause starting near its top, else the clause in
    effect where it starts: never one that ended before it (an appendix's chunk is not
    filed under the last rule of the chapter before the appendix)."""
    layout, hits = ingested(key)
    wrong = [(h.ordinal, h.clause) for h in hits
             if h.clause not in layout.inside(h.page_start, h.char_start, h.char_end)
             | {layout.in_effect(h.page_start, h.char_start)}]
    assert not wrong, f"{len(wrong)} of {len(hits)} chunks of {key} misfiled: {wrong[:10]}"


@needs_rulebooks
def test_the_issue_s_quotes_are_labelled_by_their_own_clause() -> None:
    """A guidance paragraph of GEN's appendix is labelled by its own number, not by the
    last rule of chapter 9; a quote that begins "2.3.1.Guidance.2. " by 2.3.1.Guidance.2."""
    labels = {q.quote.split("\t")[0]: q.given for q in quoted("GEN")}
    assert labels["A1.1.Guidance.3."] == "A1.1.Guidance.3"
    assert labels["2.3.1.Guidance.2. "] == "2.3.1.Guidance.2"
    appendix = [q for q in quoted("GEN") if q.expected and q.expected.startswith(("APP", "A1"))]
    assert appendix and not any(q.given and q.given[0].isdigit() for q in appendix)
