"""Documents a message names by short name, acronym or title words (named_documents)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from regintel.chat.named_documents import named_documents
from regintel.domain.documents import DocStatus, DocType, Document


def _document(title: str, kind: DocType = DocType.REGULATION) -> Document:
    return Document(id=uuid.uuid4(), title=title, version="", doc_type=kind,
                    status=DocStatus.READY, original_filename="doc.txt", mime_type="text/plain",
                    size_bytes=1, created_at=datetime.now(UTC), content_hash="0" * 64,
                    file_path="doc.txt")


LIBRARY = [_document("ADGM Conduct of Business Rulebook (COBS)"),
           _document("ADGM General Rulebook (GEN)"),
           _document("General Data Protection Regulation (GDPR)"),
           _document("Harbour Bank Records Policy", DocType.POLICY)]


def _named(message: str) -> list[str]:
    return [d.title for d in named_documents(message, LIBRARY)]


def test_the_noun_tells_apart_titles_that_share_the_name_word() -> None:
    # "General" is in two titles; only one of them is a Rulebook.
    assert _named("Compare COBS and the General Rulebook on complaints handling") == [
        "ADGM Conduct of Business Rulebook (COBS)", "ADGM General Rulebook (GEN)"]
    assert _named("What does the General Regulation say on consent?") == [
        "General Data Protection Regulation (GDPR)"]


def test_a_name_that_fits_two_titles_alike_names_neither() -> None:
    assert _named("What does the General text say?") == []


def test_short_names_in_order_of_mention() -> None:
    assert _named("How do GEN and COBS differ on conflicts of interest?") == [
        "ADGM General Rulebook (GEN)", "ADGM Conduct of Business Rulebook (COBS)"]


AML_LIBRARY = [_document("ADGM Anti-Money Laundering and Sanctions Rules and Guidance (AML)"),
               _document("Falcon Crest Capital Ltd — AML/CFT Policy", DocType.POLICY)]


def test_a_slash_joined_abbreviation_is_a_pair_of_concepts() -> None:
    # Neither side of "SAR/STR" or "KYC/CDD" names a document, nor does "AML" in "AML/TFS".
    for question in ("When does the MLRO have to file a SAR/STR?",
                     "What do the KYC/CDD rules require?",
                     "How often must we review our AML/TFS controls?"):
        assert named_documents(question, AML_LIBRARY) == [], question


def test_a_slash_joined_name_a_title_holds_whole_names_that_document() -> None:
    # Not the AML Rules, whose short name is only one side of it.
    assert [d.title for d in named_documents("What does the AML/CFT Policy say about training?",
                                             AML_LIBRARY)] == [
        "Falcon Crest Capital Ltd — AML/CFT Policy"]


def test_a_document_is_named_by_the_words_its_short_name_stands_for() -> None:
    assert _named("Does the General Data Protection Regulation apply to us?") == [
        "General Data Protection Regulation (GDPR)"]
    assert [d.title for d in named_documents("What do the Anti-Money Laundering Rules say?",
                                             AML_LIBRARY)] == [AML_LIBRARY[0].title]


def test_a_short_name_in_lower_case_before_a_document_noun_names_it() -> None:
    assert _named("What is a Professional Client in the cobs rulebook?") == [
        "ADGM Conduct of Business Rulebook (COBS)"]
