"""What a comparison is about: the words left once comparison vocabulary is removed."""

from __future__ import annotations

from regintel.chat.nodes.actions import comparison_topic


def test_a_pointing_word_is_no_topic() -> None:
    # "this" once made a focused comparison on the topic "this" (a search that found nothing).
    assert comparison_topic("Compare this regulation", []) is None
    assert comparison_topic("Compare that policy with this regulation", []) is None


def test_the_topic_is_what_is_left() -> None:
    assert comparison_topic("What are the key differences in capital requirements?",
                            []) == "capital requirements"


def test_a_document_named_in_part_leaves_no_word_in_the_topic() -> None:
    from datetime import UTC, datetime
    from uuid import uuid4

    from regintel.domain.documents import DocStatus, DocType, Document

    def document(title: str) -> Document:
        return Document(id=uuid4(), title=title, version="", doc_type=DocType.REGULATION,
                        status=DocStatus.READY, original_filename="r.txt", mime_type="text/plain",
                        size_bytes=1, created_at=datetime.now(UTC), content_hash="0",
                        file_path="x")

    named = [document("ADGM Anti-Money Laundering and Sanctions Rules and Guidance (AML)"),
             document("ADGM Conduct of Business Rulebook (COBS)")]
    # "Conduct" once stayed behind: the topic read "Conduct record keeping".
    assert comparison_topic("Compare the AML Rulebook and the Conduct of Business Rulebook on "
                            "record keeping", named) == "record keeping"


def test_the_focus_is_kept_as_written() -> None:
    # "conflicts of interest", not "conflicts interest".
    assert comparison_topic("How do COBS and GEN differ on conflicts of interest?",
                            []) == "conflicts of interest"
    assert comparison_topic("Compare these two rulebooks on record keeping",
                            []) == "record keeping"
    assert comparison_topic("Compare the two policies with regard to the retention of "
                            "records.", []) == "retention of records"
