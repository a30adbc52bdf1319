"""A retrieved pointer to a section ("Section 4.5 sets out the requirements regarding
record-keeping") brings the section's opening chunks into the evidence, and the pointer
gives way to them in the answer; so does a reference that names a thing by its rule ("the
records required to be kept under Rule 4.5.1"), which stays in the answer. A failed lookup
adds nothing."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID, uuid4

import pytest

from regintel.chat.offline.ranking import pointers, sentences_of
from regintel.domain.documents import ChunkHit, DocType, StoredChunk
from regintel.ports.library import ChunkIndex
from regintel.retrieval.pointers import follow, points_to, refers_to, under
from regintel.retrieval.reading import followed

DOC = uuid4()
REFERRING = uuid4()  # a rulebook whose rule's list starts a chunk of its own
POINTER = ("5.1.1.Guidance.5.\tSection 4.5 sets out the requirements regarding record-keeping "
           "for the purposes of the AML Rulebook.")


def _chunk(ordinal: int, clause: str, text: str, document: UUID = DOC) -> StoredChunk:
    return StoredChunk(id=uuid4(), document_id=document, ordinal=ordinal, text=text,
                       page_start=1, page_end=1, char_start=0, char_end=len(text),
                       clause=clause)


CHUNKS = [
    _chunk(0, "4.4.2", "4.4.2\tA Relevant Person must inform the Regulator in writing."),
    _chunk(1, "4.5.1", "4.5\tRecord keeping\n4.5.1\tA Relevant Person must maintain the "
                       "following records:\n(a)\ta copy of all CDD documents;"),
    _chunk(2, "4.5.1", "(b)\tSAR files,\nfor at least six years from the date of the report."),
    _chunk(3, "4.5.1.Guidance", "4.5.1.Guidance\tRecords may be kept electronically."),
    _chunk(4, "4.50", "4.50\tAn unrelated rule."),
    _chunk(5, "5.1.1.Guidance.5", POINTER),
]


REFERENCE = ("4.5.4.Guidance.1.\tThe records required to be kept under Rule \u200e4.5.1 may be "
             "kept in electronic format.")
REFERRED = [
    _chunk(0, "4.4.2", "4.4.2\tA Relevant Person must inform the Regulator in writing.\n"
                       "4.5.1\tA Relevant Person must maintain the following records:",
           REFERRING),
    _chunk(1, "4.5.1", "(a)\ta copy of all CDD documents;\n(b)\tSAR files,\nfor at least six "
                       "years from the date of the report.", REFERRING),
    _chunk(2, "4.5.4.Guidance.1", REFERENCE, REFERRING),
]


def _hit(chunk: StoredChunk, score: float) -> ChunkHit:
    return ChunkHit(**chunk.model_dump(exclude={"id", "document_id"}), chunk_id=chunk.id,
                    document_id=chunk.document_id, document_title="AML",
                    document_version="1", doc_type=DocType.REGULATION, score=score)


class _Index:
    def __init__(self, fails: bool = False) -> None:
        self.fails = fails

    def _of(self, document_id: UUID) -> list[StoredChunk]:
        if self.fails:
            raise ConnectionError("database went away")
        return {DOC: CHUNKS, REFERRING: REFERRED}.get(document_id, [])

    async def document_chunks(self, tenant_id: UUID, document_id: UUID) -> list[StoredChunk]:
        return self._of(document_id)

    async def preceding(self, tenant_id: UUID, chunk_ids: Sequence[UUID],
                        depth: int) -> dict[UUID, list[StoredChunk]]:
        every = CHUNKS + REFERRED
        out = {}
        for chunk in (c for c in every if c.id in chunk_ids):
            document = self._of(chunk.document_id)
            out[chunk.id] = document[max(0, chunk.ordinal - depth):chunk.ordinal]
        return out


def test_a_pointer_names_a_section_or_rule_of_its_own_document() -> None:
    assert points_to(POINTER) == ["4.5"]
    assert points_to("Rule \u200e15.2.1 sets out the criteria. Rule 8.4.1 specifies them.") \
        == ["15.2.1", "8.4.1"]
    assert points_to("GEN Rule 8.11 sets out how information is provided.") == []
    assert points_to("Chapter 4 outlines the general requirements.") == []
    assert points_to("It must act in accordance with Rule 8.3.1.") == []
    assert points_to(REFERENCE) == []  # a reference, not a pointer
    assert [under(c, "4.5") for c in ("4.5", "4.5.1", "4.5.1.Guidance", "4.50", None)] == [
        True, True, True, False, False]


def _index(fails: bool = False) -> ChunkIndex:
    return _Index(fails)  # type: ignore[return-value]  # only the lookups reading makes


async def test_the_section_pointed_to_is_fetched_scored_as_the_pointer() -> None:
    hits = [_hit(CHUNKS[5], 0.7), _hit(CHUNKS[0], 0.2)]
    added = await follow(_index(), uuid4(), hits, "")
    assert [(h.chunk_id, h.score, h.completes) for h in added] == [
        (CHUNKS[1].id, 0.7, None), (CHUNKS[2].id, 0.7, None)]
    # A section already reached by a hit is not fetched again.
    reached = [*hits, _hit(CHUNKS[3], 0.1)]
    assert await follow(_index(), uuid4(), reached, "") == []


async def test_a_failed_lookup_adds_nothing(caplog: pytest.LogCaptureFixture) -> None:
    hits: Sequence[ChunkHit] = [_hit(CHUNKS[5], 0.7)]
    assert await follow(_index(fails=True), uuid4(), hits, "") == []
    assert "points to failed" in caplog.text


def test_the_pointer_gives_way_only_when_its_section_is_at_hand() -> None:
    alone = sentences_of([_hit(CHUNKS[5], 0.7)])
    assert pointers(alone) == [False]  # nothing better to show
    both = sentences_of([_hit(CHUNKS[5], 0.7), _hit(CHUNKS[1], 0.7)])
    first, *rest = pointers(both)
    assert (both[0].hit.clause, first) == ("5.1.1.Guidance.5", True)
    assert not any(rest)


def test_a_reference_names_a_thing_the_question_asks_about_by_a_rule_of_its_document() -> None:
    asked = "How long must records and information be kept?"
    assert refers_to(REFERENCE, asked) == ["4.5.1"]
    assert refers_to(REFERENCE, "What are the record-keeping requirements?") == ["4.5.1"]
    both = ("Where the records referred to in Rule 4.5.1 are kept outside the ADGM, the "
            "information specified in Section 9.2 must …")
    assert refers_to(both, asked) == ["4.5.1", "9.2"]
    # Another thing than the question's: "the risk assessment", asked about records.
    assert refers_to(both, "How long must records be kept?") == ["4.5.1"]
    assert refers_to("Tell the Regulator. The assessment required under Rule 6.1.1 must "
                     "cover records.", asked) == []  # "records" is in another sentence
    assert refers_to("It must keep records in accordance with Rule 8.3.1.", asked) == []
    assert refers_to("Records of a report made under Rule 14.3.1 must be kept.", asked) == []
    assert refers_to("The records referred to in GEN Rule 5.5.2 must be kept.", asked) == []


async def test_the_rule_referred_to_is_read_with_its_lead_in_and_the_reference_stays() -> None:
    """Asked how long records must be kept, search finds the guidance that names them by
    their rule; the rule's chunk, which starts at its first item, comes with its lead-in."""
    hits = [_hit(REFERRED[2], 0.6)]
    # Asked about something else, the reference is not followed.
    assert await followed(_index(), uuid4(), hits, "Who approves a new customer?") == []
    added = await followed(_index(), uuid4(), hits, "How long must records be kept?")
    assert [(h.chunk_id, h.score) for h in added] == [(REFERRED[1].id, 0.6)]
    assert added[0].lead_in == "A Relevant Person must maintain the following records:"
    # The reference says something an answer can use: unlike a pointer, it does not give way.
    read = sentences_of([*hits, *added])
    assert len(read) > 1 and not any(pointers(read))
