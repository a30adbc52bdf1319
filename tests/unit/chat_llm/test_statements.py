"""A small model's answer keeps the statements its citations support; the copied headings,
the copied example and the claim its citation does not hold are dropped."""

from __future__ import annotations

from uuid import uuid4

from regintel.chat.llm.statements import cite_uncited, supported
from regintel.domain.chat import Citation
from regintel.domain.documents import ChunkHit, DocType
from regintel.retrieval.evidence import CitationBook

KEEP = Citation(n=1, title="Library Rules", clause="2.1",
                quote="Books must be returned within 21 days of the loan.")
FEE = Citation(n=2, title="Library Rules", clause="3.4",
               quote="A member who returns a book late pays a fee of one unit for each day.")


def test_only_supported_statements_stand() -> None:
    answer = ("[1] Library Rules, clause 2.1\n"
              "Books must be returned within 21 days of the loan [1]. "
              "Members may borrow films for a week [2].\n"
              "- A late return costs one unit for each day [2].")
    kept, dropped = supported(answer, [KEEP, FEE])
    assert kept == ("Books must be returned within 21 days of the loan [1].\n"
                    "- A late return costs one unit for each day [2].")
    assert dropped == 2  # the copied heading's lone marker and the film claim


def test_a_marker_without_its_citation_is_not_support() -> None:
    kept, dropped = supported("Books must be returned within 21 days [3].", [KEEP])
    assert (kept, dropped) == ("", 1)


def test_words_shown_with_the_evidence_are_no_claim() -> None:
    answer = ("Members borrowing reference works from the reading room must return books "
              "within 21 days of the loan [1].")
    assert supported(answer, [KEEP])[0] == ""
    lead_in = frozenset({"members", "borrowing", "reference", "works", "reading", "room"})
    assert supported(answer, [KEEP], lead_in)[0] == answer


def _hit(text: str) -> ChunkHit:
    return ChunkHit(ordinal=0, text=text, page_start=1, page_end=1, char_start=0,
                    char_end=len(text), clause="2.1", chunk_id=uuid4(), document_id=uuid4(),
                    document_title="Library Rules", document_version="1",
                    doc_type=DocType.REGULATION, score=0.9)


def test_a_plain_sentence_cites_the_passage_that_holds_it() -> None:
    hit = _hit("A member may borrow up to five books at a time. Books must be returned "
               "within 21 days of the loan.")
    book = CitationBook()
    answer = "Books must be returned within 21 days of the loan. The moon is made of cheese."
    cited = cite_uncited(answer, [hit], book)
    assert cited == ("Books must be returned within 21 days of the loan [1]. "
                     "The moon is made of cheese.")
    # A clause number's dots do not end the sentence.
    assert cite_uncited("Under rule 2.1 books must be returned within 21 days of the loan.",
                        [hit], CitationBook()).endswith("of the loan [1].")
    assert book.citations[0].quote == "Books must be returned within 21 days of the loan."
    assert supported(cited, book.citations) == (
        "Books must be returned within 21 days of the loan [1].", 0)


def test_a_statement_citing_only_a_heading_is_dropped() -> None:
    heading = Citation(n=3, title="Library Rules", clause="4.2", quote="4.2 Late returns")
    answer = ("Rule 4.2 Late returns [3].\n"
              "- A late return costs one unit for each day [2].")
    kept, dropped = supported(answer, [KEEP, FEE, heading])
    assert (kept, dropped) == ("- A late return costs one unit for each day [2].", 1)
