"""A chunk that opens inside a list is shown with the list's lead-in from the chunk before,
one cut into a sentence with the sentence's opening words (and quoted whole from the chunk
before when that holds it); a failed lookup leaves the answer as it was."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID, uuid4

import pytest

from regintel.chat.offline.ranking import sentences_of
from regintel.domain.documents import ChunkHit, DocType, StoredChunk
from regintel.retrieval.evidence import CitationBook
from regintel.retrieval.preceding import attach, clause_before, lead_in, opening, running_clause

BEFORE = ("4.4.1\tA Relevant Person must appoint an MLRO.\n"
          "4.5.1\tA Relevant Person must, where relevant, maintain the following records:\n"
          "(a)\ta copy of all documents obtained in undertaking CDD;\n"
          "(b)\trecords of the business relationship, including:\n"
          "(i)\tbusiness correspondence;\n")
INSIDE = ("(e)\tany relevant communications with the FIU;\n"
          "(f)\tthe documents in Rule 4.6.1; and\n"
          "4.6.1\tA Relevant Person must keep its risk assessment up to date and documented.\n")
LEAD = "A Relevant Person must, where relevant, maintain the following records:"


def test_the_lead_in_is_the_line_that_opens_the_clause() -> None:
    assert lead_in("4.5.1", BEFORE) == LEAD
    assert lead_in("8.3.5.(2)", "8.3.5.(2)\tThe Relevant Person must identify:\n(a)\tx;") == \
        "The Relevant Person must identify:"


def test_no_lead_in_when_another_clause_began_or_the_clause_asks_nothing_listed() -> None:
    assert lead_in("4.4.1", BEFORE) is None  # 4.5.1 began after it
    assert lead_in("4.4.1", "4.4.1\tA Relevant Person must appoint an MLRO.\n") is None
    assert lead_in("4.5.1", "(c)\tinternal notifications;\n") is None


CUT = ("Person should be aware that customer relationships with family members of PEPs "
       "involve similar risks. A Relevant Person must apply Enhanced CDD to them.")
CUT_BEFORE = ("8.3.6.Guidance.2.\tGenerally, a foreign PEP presents a higher risk.\n"
              "8.3.6.Guidance.3.\tA Relevant " + CUT[:120])


def test_the_opening_is_the_start_of_the_sentence_the_chunk_is_cut_into() -> None:
    assert opening(CUT_BEFORE, CUT) == "A Relevant"
    starts = "A Relevant Person must apply Enhanced CDD to them and keep records."
    assert opening("It must act. " + starts, starts) is None  # a sentence starts there
    assert opening("must:\n" + starts, starts) is None  # a line starts there
    assert opening("no overlap with the chunk at all", CUT) is None


def test_the_clause_before_is_the_last_marker_before_the_chunk_starts() -> None:
    assert clause_before(CUT_BEFORE, CUT) == "8.3.6.Guidance.3"
    assert clause_before(BEFORE, INSIDE) == "4.5.1"  # no overlap found: the last marker
    assert clause_before("no marker here", CUT) is None


def _stored(text: str, clause: str | None) -> StoredChunk:
    return StoredChunk(id=uuid4(), document_id=uuid4(), ordinal=2, text=text, page_start=1,
                       page_end=1, char_start=0, char_end=len(text), clause=clause)


def test_chunks_before_without_a_marker_run_on_in_the_clause_the_first_is_filed_under() -> None:
    # A long article: neither chunk looked back starts a clause, so the chunk after them
    # starts in the one they run on in.
    long = [_stored("the data subject has given consent;", "Article 6"),
            _stored("processing is necessary for a contract;", "Article 6")]
    assert running_clause(long) == "Article 6"
    assert running_clause([*long, _stored(BEFORE, "4.5.1")]) is None  # a marker: read it
    assert running_clause([]) is None


def _hit(text: str, clause: str | None, lead: str | None = None,
         start: str | None = None) -> ChunkHit:
    return ChunkHit(ordinal=3, text=text, page_start=1, page_end=1, char_start=0,
                    char_end=len(text), clause=clause, chunk_id=uuid4(), document_id=uuid4(),
                    document_title="AML", document_version="1", doc_type=DocType.REGULATION,
                    score=0.9, lead_in=lead, opening=start)


def test_the_first_sentence_is_shown_whole() -> None:
    first, second = sentences_of([_hit(CUT, None, start="A Relevant")])
    assert first.shown.startswith("A Relevant Person should be aware that")
    assert first.in_context == f"A Relevant {first.text}"
    assert second.shown == "A Relevant Person must apply Enhanced CDD to them."


def test_items_are_shown_after_the_lead_in_until_the_next_clause() -> None:
    found = sentences_of([_hit(INSIDE, "4.5.1", LEAD)])
    assert [s.shown for s in found] == [  # "(f) the documents …" is too short to show
        f"{LEAD} … any relevant communications with the FIU; …",
        "A Relevant Person must keep its risk assessment up to date and documented."]
    assert found[0].in_context == f"{LEAD} {found[0].text}"
    assert found[1].in_context == found[1].text


class _Index:
    """Each chunk's text before it, as a document would have it; or a failing lookup."""

    def __init__(self, before: dict[UUID, str] | None) -> None:
        self.before = before

    async def preceding(self, tenant_id: UUID, chunk_ids: Sequence[UUID],
                        depth: int) -> dict[UUID, list[StoredChunk]]:
        if self.before is None:
            raise ConnectionError("database went away")
        return {i: [StoredChunk(id=uuid4(), document_id=uuid4(), ordinal=2, text=text,
                                page_start=1, page_end=1, char_start=0, char_end=len(text),
                                clause=None)] for i in chunk_ids if (text := self.before[i])}


async def test_attach_reads_the_lead_in_and_the_opening_the_chunk_needs() -> None:
    hits = [_hit(INSIDE, "4.5.1"), _hit("4.6.1\tA Relevant Person must keep …", "4.6.1"),
            _hit(CUT, "8.3.6")]
    before = dict(zip([h.chunk_id for h in hits], [BEFORE, BEFORE, CUT_BEFORE], strict=True))
    shown = await attach(_Index(before), uuid4(), hits)  # type: ignore[arg-type]
    assert [(h.lead_in, h.opening, h.clause_before) for h in shown] == [
        (LEAD, None, "4.5.1"), (None, None, "4.5.1"), (None, "A Relevant", "8.3.6.Guidance.3")]
    # The chunk cut into a sentence keeps the chunk before, to quote the sentence from.
    assert [h.opened_in.text if h.opened_in else None for h in shown] == [None, None, CUT_BEFORE]
    assert shown[2].opened_in is not None
    assert shown[2].opened_in.document_id == hits[2].document_id


def test_a_sentence_a_chunk_is_cut_into_is_quoted_whole_from_the_chunk_before() -> None:
    earlier = _hit(CUT_BEFORE, "8.3.6.Guidance.2")
    hit = _hit(CUT, "8.3.6", start="A Relevant").model_copy(update={"opened_in": earlier})
    first, second = sentences_of([hit])
    book = CitationBook()
    n = book.cite_sentence(hit, first.text)
    cited = book.citations[0]
    assert (n, cited.chunk_id, cited.clause) == (1, earlier.chunk_id, "8.3.6.Guidance.3")
    assert cited.quote == ("8.3.6.Guidance.3.\tA Relevant Person should be aware that customer "
                           "relationships with family members of PEPs involve similar risks.")
    # A sentence that starts in the chunk itself is quoted from it.
    assert book.cite_sentence(hit, second.text) == 2
    assert book.citations[1].chunk_id == hit.chunk_id
    # The chunk before holds the sentence's start but not its end: quoted from the chunk.
    short = earlier.model_copy(update={"text": CUT_BEFORE[:CUT_BEFORE.index("family") + 6]})
    cut = hit.model_copy(update={"opened_in": short})
    assert book.cite_sentence(cut, first.text) == 3
    assert book.citations[2].quote.startswith("Person should be aware")


def test_a_later_clause_before_the_chunk_means_it_is_not_inside_the_list() -> None:
    assert lead_in("4.5.1", BEFORE + CUT_BEFORE) is None  # 8.3.6.Guidance.3 began after it


async def test_a_failed_lookup_leaves_the_hits_as_they_were(
        caplog: pytest.LogCaptureFixture) -> None:
    hits = [_hit(INSIDE, "4.5.1")]
    assert await attach(_Index(None), uuid4(), hits) == hits  # type: ignore[arg-type]
    assert "lookup of the chunks before failed" in caplog.text
