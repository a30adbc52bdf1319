"""Instruments a question names as its source that the library does not hold, read from the
question's grammar and the library's titles (instrument_names)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest

from regintel.chat.instrument_names import (
    Name,
    answer_opening,
    held,
    sources,
    still_unheld,
    unheld,
    without,
)
from regintel.chat.named_documents import named_documents
from regintel.domain.documents import ChunkHit, DocStatus, DocType, Document


def _document(title: str, version: str, kind: DocType = DocType.REGULATION) -> Document:
    return Document(id=uuid.uuid4(), title=title, version=version, doc_type=kind,
                    status=DocStatus.READY, original_filename="doc.txt", mime_type="text/plain",
                    size_bytes=1, created_at=datetime.now(UTC), content_hash="0" * 64,
                    file_path="doc.txt")


# The demo library's titles and versions.
LIBRARY = [
    _document("ADGM Anti-Money Laundering and Sanctions Rules and Guidance (AML)",
              "VER09.211223"),
    _document("ADGM General Rulebook (GEN)", "VER08.181223"),
    _document("ADGM Conduct of Business Rulebook (COBS)", "VER15.150823"),
    _document("GDPR (Regulation (EU) 2016/679)", "2016/679"),
    _document("Falcon Crest Capital Ltd — AML/CFT Policy", "2026.1", DocType.POLICY)]


def _unheld(question: str) -> list[str]:
    return [n.text for n in unheld(question, LIBRARY)]


@pytest.mark.parametrize(("question", "names"), [
    ("What does MiFID II say about best execution?", ["MiFID II"]),
    ("Under the UK MLR 2017, how long must we keep records?", ["UK MLR 2017"]),
    ("According to the FCA Handbook, what must a firm do about complaints?", ["FCA Handbook"]),
    ("What does the Companies Act 2006 say about directors?", ["Companies Act 2006"]),
    ("What are the requirements of MiFID II on inducements?", ["MiFID II"]),
    ("What does Directive 2015/849 say about PEPs?", ["Directive 2015/849"]),
    ("Compare COBS and MiFID II on best execution", ["MiFID II"]),
    ("Summarise the UK MLR 2017", ["UK MLR 2017"]),
    # A year the library's document does not carry is another instrument.
    ("What is required under the Money Laundering Regulations 2017?",
     ["Money Laundering Regulations 2017"]),
])
def test_an_instrument_used_as_a_source_that_the_library_lacks(question: str,
                                                               names: list[str]) -> None:
    assert _unheld(question) == names


@pytest.mark.parametrize("question", [
    "What does COBS say about client money?",
    "What is a Retail Client under COBS?",
    "What is the DPO's role under GDPR Article 39?",
    "What does the EU GDPR say about consent?",
    "Does the General Data Protection Regulation apply to us?",  # GDPR spelled out
    "Under the AML Rules, who is the MLRO?",
    "What does ADGM say about outsourcing?",  # a word of the library's titles
    "What does GDPR 2016/679 say about consent?",  # the document's own version
])
def test_a_name_the_library_gives_its_documents_is_held(question: str) -> None:
    assert sources(question) and _unheld(question) == []


@pytest.mark.parametrize("question", [
    "When does the MLRO have to file a SAR/STR?",
    "What are the KYC/CDD requirements for a PEP?",
    "What do the KYC/CDD rules require?",
    "What is the role of the MLRO in CDD?",  # "in CDD" is a topic
    "What is the CET1 ratio?",
    "Who is a Relevant Person?",
    "What does the Regulation say about consent?",  # no name before the noun
    "How did COVID 19 affect reporting deadlines?",
    # A concept's abbreviation before "guidelines" or "regulations" is a topic's rules.
    "What do the KYC guidelines say about beneficial owners?",
    "What do the CDD regulations require for a trust?",
])
def test_concepts_and_capitalised_words_are_not_sources(question: str) -> None:
    assert sources(question) == []


def test_a_proper_name_before_guidelines_is_still_an_instrument() -> None:
    assert _unheld("What do the FSA guidelines say about this?") == ["FSA guidelines"]
    assert _unheld("What does the FATF guidelines require?") == ["FATF guidelines"]


def test_a_missing_instrument_does_not_name_the_document_sharing_its_words() -> None:
    question = "What is required under the Money Laundering Regulations 2017?"
    assert [d.title for d in named_documents(question, LIBRARY)] == [LIBRARY[0].title]
    assert named_documents(without(question, unheld(question, LIBRARY)), LIBRARY) == []
    held_name = "What do the AML Rules require under 8.3.1?"
    assert without(held_name, unheld(held_name, LIBRARY)) == held_name


def test_held_reads_the_library_titles_only() -> None:
    assert held("COBS", LIBRARY) and held("Conduct of Business Rulebook", LIBRARY)
    assert not held("MiFID II", LIBRARY) and not held("UK MLR 2017", LIBRARY)
    assert not held("MiFID II", [])


def _hit(title: str, text: str) -> ChunkHit:
    return ChunkHit(ordinal=0, text=text, page_start=1, page_end=1, char_start=0,
                    char_end=len(text), chunk_id=uuid.uuid4(), document_id=uuid.uuid4(),
                    document_title=title, document_version="", doc_type=DocType.REGULATION,
                    score=0.5)


def test_a_bare_abbreviation_the_evidence_uses_is_a_term_not_a_missing_document() -> None:
    names = [Name("CDD", plain=True), Name("CDD guidelines", plain=True),
             Name("PSD2", plain=True), Name("MiFID II", plain=False)]
    hits = [_hit("AML", "A Relevant Person must undertake CDD under Rule 8.3.1.")]
    assert still_unheld(names, hits) == ["PSD2", "MiFID II"]


def test_the_first_sentence_says_what_is_missing_and_what_was_searched() -> None:
    hits = [_hit("ADGM Conduct of Business Rulebook (COBS)", "best execution")]
    assert answer_opening(["MiFID II"], hits, []) == (
        "MiFID II is not in your library; the answer below is from the documents searched "
        "instead: ADGM Conduct of Business Rulebook (COBS).")
    assert answer_opening(["MiFID II", "FCA Handbook"], [], ["ADGM General Rulebook (GEN)"]) \
        == ("MiFID II and FCA Handbook are not in your library; the answer below is from the "
            "documents searched instead: ADGM General Rulebook (GEN).")
    assert answer_opening(["MiFID II"], [], []) == (
        "MiFID II is not in your library. Please upload it, or tag the documents to use "
        "with @.")
