"""A retrieved pointer to a section ("Section 4.5 sets out the requirements regarding
record-keeping") brings the section's opening chunks into the evidence, and the pointer
gives way to them in the answer; a failed lookup adds nothing."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID, uuid4

import pytest

from regintel.chat.offline.ranking import pointers, sentences_of
from regintel.domain.documents import ChunkHit, DocType, StoredChunk
from regintel.retrieval.pointers import follow, points_to, under

DOC = uuid4()
POINTER = ("5.1.1.Guidance.5.\tSection 4.5 sets out the requirements regarding record-keeping "
           "for the purposes of the AML Rulebook.")


def _chunk(ordinal: int, clause: str, text: str) -> StoredChunk:
    return StoredChunk(id=uuid4(), document_id=DOC, ordinal=ordinal, text=text, page_start=1,
                       page_end=1, char_start=0, char_end=len(text), clause=clause)


CHUNKS = [
    _chunk(0, "4.4.2", "4.4.2\tA Relevant Person must inform the Regulator in writing."),
    _chunk(1, "4.5.1", "4.5\tRecord keeping\n4.5.1\tA Relevant Person must maintain the "
                       "following records:\n(a)\ta copy of all CDD documents;"),
    _chunk(2, "4.5.1", "(b)\tSAR files,\nfor at least six years from the date of the report."),
    _chunk(3, "4.5.1.Guidance", "4.5.1.Guidance\tRecords may be kept electronically."),
    _chunk(4, "4.50", "4.50\tAn unrelated rule."),
    _chunk(5, "5.1.1.Guidance.5", POINTER),
]


def _hit(chunk: StoredChunk, score: float) -> ChunkHit:
    return ChunkHit(**chunk.model_dump(exclude={"id", "document_id"}), chunk_id=chunk.id,
                    document_id=DOC, document_title="AML", document_version="1",
                    doc_type=DocType.REGULATION, score=score)


class _Index:
    def __init__(self, fails: bool = False) -> None:
        self.fails = fails

    async def document_chunks(self, tenant_id: UUID, document_id: UUID) -> list[StoredChunk]:
        if self.fails:
            raise ConnectionError("database went away")
        return CHUNKS if document_id == DOC else []


def test_a_pointer_names_a_section_or_rule_of_its_own_document() -> None:
    assert points_to(POINTER) == ["4.5"]
    assert points_to("Rule \u200e15.2.1 sets out the criteria. Rule 8.4.1 specifies them.") \
        == ["15.2.1", "8.4.1"]
    assert points_to("GEN Rule 8.11 sets out how information is provided.") == []
    assert points_to("Chapter 4 outlines the general requirements.") == []
    assert points_to("It must act in accordance with Rule 8.3.1.") == []
    assert [under(c, "4.5") for c in ("4.5", "4.5.1", "4.5.1.Guidance", "4.50", None)] == [
        True, True, True, False, False]


async def test_the_section_pointed_to_is_fetched_scored_as_the_pointer() -> None:
    hits = [_hit(CHUNKS[5], 0.7), _hit(CHUNKS[0], 0.2)]
    added = await follow(_Index(), uuid4(), hits)  # type: ignore[arg-type]
    assert [(h.chunk_id, h.score, h.completes) for h in added] == [
        (CHUNKS[1].id, 0.7, None), (CHUNKS[2].id, 0.7, None)]
    # A section already reached by a hit is not fetched again.
    reached = [*hits, _hit(CHUNKS[3], 0.1)]
    assert await follow(_Index(), uuid4(), reached) == []  # type: ignore[arg-type]


async def test_a_failed_lookup_adds_nothing(caplog: pytest.LogCaptureFixture) -> None:
    hits: Sequence[ChunkHit] = [_hit(CHUNKS[5], 0.7)]
    assert await follow(_Index(fails=True), uuid4(), hits) == []  # type: ignore[arg-type]
    assert "points to failed" in caplog.text


def test_the_pointer_gives_way_only_when_its_section_is_at_hand() -> None:
    alone = sentences_of([_hit(CHUNKS[5], 0.7)])
    assert pointers(alone) == [False]  # nothing better to show
    both = sentences_of([_hit(CHUNKS[5], 0.7), _hit(CHUNKS[1], 0.7)])
    first, *rest = pointers(both)
    assert (both[0].hit.clause, first) == ("5.1.1.Guidance.5", True)
    assert not any(rest)
