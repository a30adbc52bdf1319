"""A citation names the clause its quote sits under, not only the one its chunk is filed
under: a chunk often holds the end of one clause and the start of the next."""

from __future__ import annotations

from uuid import uuid4

from regintel.domain.documents import ChunkHit, DocType
from regintel.retrieval.evidence import CitationBook

TEXT = ("15.6.2.(1)\tA DNFBP must notify the Regulator in writing at least ten Business Days "
        "in advance of it ceasing to carry on its business.\n"
        "15.7.1.(1)\tThe Regulator may suspend the registration of a DNFBP at its request.\n")


def _hit(text: str, clause: str | None, before: str | None = None) -> ChunkHit:
    return ChunkHit(ordinal=0, text=text, page_start=3, page_end=3, char_start=0,
                    char_end=len(text), clause=clause, chunk_id=uuid4(), document_id=uuid4(),
                    document_title="AML Rulebook", document_version="VER09",
                    doc_type=DocType.REGULATION, score=0.9, clause_before=before)


def _clause(hit: ChunkHit, quote: str) -> str | None:
    book = CitationBook()
    n = book.cite(hit, quote)
    assert n is not None
    return book.citations[n - 1].clause


def test_a_quote_from_the_next_clause_of_the_chunk_cites_that_clause() -> None:
    hit = _hit(TEXT, "15.6.2.(1)")
    assert _clause(hit, "The Regulator may suspend the registration of a DNFBP at its "
                        "request.") == "15.7.1.(1)"
    assert _clause(hit, "A DNFBP must notify the Regulator in writing") == "15.6.2.(1)"


def test_a_quote_before_the_clause_the_chunk_is_named_after_cites_no_clause() -> None:
    # The chunk starts in the list of 15.6.1 and is named after 15.6.2, which starts near
    # its top; the list items belong to 15.6.1, which the chunk does not show.
    text = "(b)\tlegal status;\n(c)\taddress.\n" + TEXT
    assert _clause(_hit(text, "15.6.2.(1)"), "legal status;") is None
    # Unless the chunks before said which clause the chunk's first words belong to.
    assert _clause(_hit(text, "15.6.2.(1)", before="15.6.1"), "legal status;") == "15.6.1"
    assert _clause(_hit(text, "15.6.2.(1)", before="15.6.1"),
                   "A DNFBP must notify the Regulator in writing") == "15.6.2.(1)"


def test_a_quote_in_a_clause_running_on_from_the_previous_chunk_cites_it() -> None:
    text = "the Relevant Person must keep the records for six years.\n" + TEXT
    assert _clause(_hit(text, "4.5.1"), "must keep the records for six years.") == "4.5.1"


def test_a_quote_stops_where_the_next_clause_starts() -> None:
    from regintel.retrieval.evidence import quote_around

    quote = quote_around(TEXT, 0)
    assert quote.startswith("15.6.2.(1)") and "15.7.1" not in quote
    same = "4.1\tThe Firm must keep records. It keeps them for six years.\n4.2\tNext.\n"
    assert quote_around(same, 0) == "4.1\tThe Firm must keep records. It keeps them for six years."
