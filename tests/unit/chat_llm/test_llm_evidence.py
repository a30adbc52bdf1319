"""The evidence a model reads: a passage that opens inside a list or a sentence carries what
it needs from the text before, marked as not to be quoted."""

from __future__ import annotations

from uuid import uuid4

from regintel.chat.llm.evidence_text import evidence_item
from regintel.domain.documents import ChunkHit, DocType

ITEM = "(e)\tany relevant communications with the FIU;\n(f)\tthe documents in Rule 4.6.1; and"
LEAD = "A Relevant Person must, where relevant, maintain the following records:"


def _hit(**extra: str) -> ChunkHit:
    return ChunkHit(ordinal=4, text=ITEM, page_start=3, page_end=3, char_start=0,
                    char_end=len(ITEM), clause="4.5.1", chunk_id=uuid4(), document_id=uuid4(),
                    document_title="AML Rules", document_version="9",
                    doc_type=DocType.REGULATION, score=0.8, **extra)


def test_a_passage_inside_a_list_is_read_after_its_lead_in() -> None:
    shown = evidence_item(2, _hit(lead_in=LEAD))
    assert shown == (f"[2] AML Rules, clause 4.5.1, p. 3\n(Read after, from the text before "
                     f"it; do not quote: \"{LEAD}\")\n{ITEM}")


def test_a_passage_that_needs_nothing_before_is_shown_as_it_is() -> None:
    assert evidence_item(1, _hit()) == f"[1] AML Rules, clause 4.5.1, p. 3\n{ITEM}"
