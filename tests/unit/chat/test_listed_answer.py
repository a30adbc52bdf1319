"""Items of one rule's list in an answer are shown once under their lead-in, in the list's
order and numbered as shown; a requirements question puts the rules before the guidance."""

from __future__ import annotations

from uuid import UUID, uuid4

from regintel.chat.offline.compose import listed
from regintel.chat.offline.ranking import Sentence, sentences_of
from regintel.domain.documents import ChunkHit, DocType
from regintel.retrieval.evidence import CitationBook

DOC = uuid4()
LEAD_IN = "A Relevant Person must, where relevant, maintain the following records:"
FIRST = (f"4.5.1\t{LEAD_IN}\n(a)\ta copy of all documents obtained in undertaking CDD;\n"
         "(b)\tthe supporting records in respect of the business relationship;\n")
LATER = ("(e)\tany relevant communications with the FIU;\n(f)\tthe documents in Rule 4.6.1; "
         "and\n")
OTHER = "13.2.1\tA Relevant Person must provide AML/TFS training at least annually.\n"


def _hit(text: str, ordinal: int, clause: str, *, lead_in: str | None = None,
         document: UUID = DOC) -> ChunkHit:
    return ChunkHit(ordinal=ordinal, text=text, page_start=1, page_end=1, char_start=0,
                    char_end=len(text), clause=clause, chunk_id=uuid4(), document_id=document,
                    document_title="AML Rules", document_version="VER09",
                    doc_type=DocType.REGULATION, score=0.9, lead_in=lead_in)


def _first(hit: ChunkHit, starts: str) -> Sentence:
    return next(s for s in sentences_of([hit]) if s.clean.startswith(starts))


def test_items_of_one_list_share_their_lead_in_in_the_lists_order() -> None:
    later = _first(_hit(LATER, 7, "4.5.1", lead_in=LEAD_IN), "any relevant")
    first = _first(_hit(FIRST, 6, "4.5.1"), "A Relevant Person must, where")
    other = _first(_hit(OTHER, 30, "13.2.1"), "A Relevant Person must provide")
    book = CitationBook()
    lines = listed([later, other, first], book)  # the order the answer chose them in
    assert lines[0] == f"- AML Rules, 4.5.1: {LEAD_IN}"
    assert lines[1].startswith("  - (a) a copy of all documents") and lines[1].endswith("[1]")
    assert lines[2].startswith("  - (e) any relevant communications with the FIU;")
    assert lines[2].endswith("[2]")
    assert lines[3].startswith("- AML Rules, 13.2.1: A Relevant Person must provide")
    assert lines[3].endswith("[3]") and len(lines) == 4
    assert [c.clause for c in book.citations] == ["4.5.1", "4.5.1", "13.2.1"]


def test_a_single_item_keeps_its_lead_in_on_its_own_line() -> None:
    later = _first(_hit(LATER, 7, "4.5.1", lead_in=LEAD_IN), "any relevant")
    lines = listed([later], CitationBook())
    assert lines == [f"- AML Rules, 4.5.1: {LEAD_IN} … any relevant communications with the "
                     "FIU; … [1]"]


def test_the_same_lead_in_in_two_documents_is_two_lists() -> None:
    one = _first(_hit(LATER, 7, "4.5.1", lead_in=LEAD_IN), "any relevant")
    two = _first(_hit(LATER, 7, "4.5.1", lead_in=LEAD_IN, document=uuid4()), "any relevant")
    lines = listed([one, two], CitationBook())
    assert len(lines) == 2 and all(line.startswith(f"- AML Rules, 4.5.1: {LEAD_IN} …")
                                   for line in lines)
