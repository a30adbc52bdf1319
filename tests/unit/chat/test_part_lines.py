"""A rulebook summary's line for each part leads with the part's binding duty - not the
chapter's note on whom it does not apply to, nor its guidance - then the part's other duties
in one sentence, every quote verbatim; a part with no duty says what it sets up."""

from __future__ import annotations

import re
from uuid import uuid4

import numpy as np

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.chat.offline import part_lines
from regintel.chat.offline.ranking import Sentence, sentence_vectors, sentences_of
from regintel.domain.documents import ChunkHit, DocType
from regintel.retrieval import outline
from regintel.retrieval.evidence import CitationBook, verify

DOC = uuid4()
CLASSIFY = "2. CLIENT CLASSIFICATION"
RECORDS = "3. RECORD KEEPING"
GLOSSARY = "4. INTERPRETATION"
PARTS = {
    CLASSIFY: (
        "2.1.1\tThis chapter does not apply to a Credit Rating Agency.\n"
        "2.1.2\tAn Authorised Person is not required to classify a Market Counterparty again.\n"
        "2.2.1\tAn Authorised Person must categorise each of its Clients as a Retail Client or "
        "a Professional Client.\n"
        "2.2.1.Guidance.1\tAn Authorised Person must consider the client's experience when it "
        "categorises the client.\n"
        "2.2.2\tAn Authorised Person must ensure that a Client is appropriately and correctly "
        "classified with respect to each service it provides to that Client.\n"
        "2.2.3\tAn Authorised Person should review the categorisation of its Clients each "
        "year.\n"
        "2.3.1\tAn Authorised Person must notify each Client in writing of its categorisation "
        "as a Retail Client or a Professional Client before providing any service.\n"),
    RECORDS: (
        "3.1.1\tAn Authorised Person must keep a record of each Client's categorisation for at "
        "least six years from the end of the relationship with that Client.\n"
        "3.1.2\tThe records must be kept in a form that allows the Regulator to inspect them "
        "on request within a reasonable time.\n"),
    GLOSSARY: (
        "4.1.1\tThis chapter explains how the terms used in the Rulebook are to be read, and "
        "which glossary applies to each of them.\n"
        "4.1.2\tA reference to a Person in the Rulebook includes a body corporate and an "
        "unincorporated body of persons.\n"),
}


def _hits() -> list[ChunkHit]:
    hits = []
    for ordinal, (heading, text) in enumerate(PARTS.items()):
        hits.append(ChunkHit(ordinal=ordinal, text=text, page_start=1, page_end=1,
                             char_start=0, char_end=len(text), clause=None, chunk_id=uuid4(),
                             document_id=DOC, document_title="Conduct Rules",
                             document_version="1", doc_type=DocType.REGULATION, score=1.0,
                             section=heading))
    return hits


def _sentence(text: str, heading: str = CLASSIFY) -> Sentence:
    hit = ChunkHit(ordinal=0, text=text, page_start=1, page_end=1, char_start=0,
                   char_end=len(text), clause=None, chunk_id=uuid4(), document_id=DOC,
                   document_title="Conduct Rules", document_version="1",
                   doc_type=DocType.REGULATION, score=1.0, section=heading)
    [sentence] = sentences_of([hit])
    return sentence


def test_a_duty_binds_and_lifts_nothing() -> None:
    assert part_lines.is_duty(_sentence("2.2.1\tAn Authorised Person must categorise each of "
                                        "its Clients.\n"))
    assert part_lines.is_duty(_sentence("2.2.4\tAn Authorised Person may only rely on a "
                                        "classification it has checked.\n"))
    for text in ("2.2.3\tAn Authorised Person should review its Clients each year.\n",
                 "2.1.2\tAn Authorised Person is not required to classify a Market "
                 "Counterparty again.\n",
                 "2.1.3\tThe requirements of this chapter shall not apply to a Fund "
                 "Manager.\n",
                 "2.1.4\tA reference to a Client shall be construed as a reference to a "
                 "Person.\n",
                 "2.2.1.Guidance.1\tAn Authorised Person must consider the client's "
                 "experience.\n"):
        assert not part_lines.is_duty(_sentence(text)), text


async def _walk(embedder: LocalEmbedder,
                book: CitationBook) -> tuple[list[part_lines.PartLine], list[ChunkHit]]:
    hits = _hits()
    level = outline.level_of(hits)
    assert level == 0
    # As a summary reads a chunk: its first sentences only (the part's other duties are
    # looked for in the rest of it).
    candidates = [s for s in sentences_of(hits, per_chunk=3) if s.is_statement]
    matrix = await sentence_vectors(embedder, candidates)
    lines = await part_lines.walk(embedder, book, DOC, hits, candidates, matrix,
                                  outline.parts_of(hits, level), level, overview=-1)
    return lines, hits


async def test_each_part_leads_with_its_binding_duty(embedder: LocalEmbedder) -> None:
    book = CitationBook()
    lines, hits = await _walk(embedder, book)
    assert [line.part.heading for line in lines] == [CLASSIFY, RECORDS, GLOSSARY]
    classify, records, glossary = lines
    by_n = {c.n: c for c in book.citations}
    lead = by_n[classify.part.statement.citations[0]].quote
    assert lead.startswith(("2.2.1\tAn Authorised Person must categorise",
                            "2.2.2\tAn Authorised Person must ensure",
                            "2.3.1\tAn Authorised Person must notify")), lead
    # Its other duties in one sentence, each quoted from its holder, none of them the
    # exemptions, the guidance or the "should".
    assert classify.duty and " Its other duties: " in classify.line
    others = [by_n[n].quote for n in classify.part.statement.citations[1:]]
    assert len(others) == 2 and all(q.startswith("An Authorised Person must") for q in others)
    assert not any(re.search(r"not required|does not apply|should|consider", q)
                   for q in [lead, *others])
    # The line: the lead, its marker, then each other duty with its clause and marker.
    first, rest = classify.line.split(" Its other duties: ")
    assert first.startswith(f"- {CLASSIFY}: An Authorised Person must ")
    assert first.endswith(f"[{classify.part.statement.citations[0]}]")
    assert re.fullmatch(r"(?:An Authorised Person must [^;]+ … \(2\.\d\.\d\) \[\d\](?:; |\.$))+",
                        rest), rest
    assert records.duty and len(records.part.statement.citations) == 2
    # A glossary chapter states no duty: its line says what it sets up.
    assert not glossary.duty and glossary.part.statement.text.startswith("This chapter")
    assert part_lines.without_duty(lines) == "4"
    # Every quote is verbatim in the chunk it cites.
    texts = {h.chunk_id: h.text for h in hits}
    assert all(c.chunk_id is not None and verify(c.quote, texts[c.chunk_id])
               for c in book.citations)


async def test_the_overview_sentence_is_a_part_line_only_when_the_part_has_no_other(
        embedder: LocalEmbedder) -> None:
    hits = _hits()
    candidates = [s for s in sentences_of(hits, per_chunk=3) if s.is_statement]
    matrix = await sentence_vectors(embedder, candidates)
    overview = next(i for i, s in enumerate(candidates)
                    if s.clean.startswith("An Authorised Person must keep a record"))
    book = CitationBook()
    lines = await part_lines.walk(embedder, book, DOC, hits, candidates, matrix,
                                  outline.parts_of(hits, 0), 0, overview=overview)
    records = next(line for line in lines if line.part.heading == RECORDS)
    assert records.part.statement.text.startswith("The records must be kept")
    assert np.isfinite(matrix).all()


def test_an_excerpt_names_the_holder_and_what_it_must_do() -> None:
    excerpt = part_lines._excerpt(_sentence(
        "3.1.1\tWhere a Client asks for it, an Authorised Person must provide a copy of its "
        "record of the Client's categorisation within ten days, and must keep it for six "
        "years.\n"))
    assert excerpt == ("an Authorised Person must provide a copy of its record of the "
                       "Client's categorisation within ten days")
    for text in ("3.1.2\tAn Authorised Person must:\n(a)\tkeep records;\n",
                 "3.1.3\tSuch a record must be kept for six years from its making.\n",
                 "3.1.4\tIt must be kept for six years from the end of the relationship.\n"):
        assert part_lines._excerpt(_sentence(text)) is None, text


def test_parts_without_a_duty_are_named_by_their_numbers() -> None:
    def line(heading: str, duty: bool) -> part_lines.PartLine:
        from regintel.domain.chat import Statement, SummaryPart
        return part_lines.PartLine(SummaryPart(heading=heading, statement=Statement(
            text="x", citations=[1])), "", duty)

    assert part_lines.without_duty([line("1. INTRODUCTION", False), line(CLASSIFY, True),
                                    line("Chapter II", False), line("APP1 BEST PRACTICE",
                                                                    False)]) \
        == "1, Chapter II and APP1"
    assert part_lines.without_duty([line(CLASSIFY, True)]) is None
