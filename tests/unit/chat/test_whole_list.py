"""A rule's list read whole from the chunks that hold it: the real AML rulebook, cut by the
real chunker, so lists run over chunks and their overlaps as they do in the product."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID, uuid4

from regintel.chat.offline import whole_list
from regintel.chat.offline.compose import listed
from regintel.chat.offline.ranking import sentences_of
from regintel.domain.documents import ChunkDraft, ChunkHit, DocType, StoredChunk
from regintel.ingestion import chunk_document
from regintel.retrieval import list_context
from regintel.retrieval.evidence import CitationBook, normalise, verify
from tests.unit.ingestion.test_rulebooks import RULEBOOKS, load, needs_rulebooks

AML = RULEBOOKS / "AML_VER09.211223.txt"
DOC = uuid4()
RECORDS = "A Relevant Person must, where relevant, maintain the following records:"


def _chunks() -> list[ChunkDraft]:
    return chunk_document(load(AML))


def _hit(chunk: ChunkDraft, **extra: object) -> ChunkHit:
    return ChunkHit(**chunk.model_dump(), chunk_id=uuid4(), document_id=DOC,
                    document_title="AML Rules", document_version="VER09",
                    doc_type=DocType.REGULATION, score=0.5, **extra)


def _around(chunks: list[ChunkDraft], needle: str) -> list[ChunkHit]:
    """The chunk holding ``needle`` and the two after it."""
    at = next(i for i, c in enumerate(chunks) if needle in c.text)
    return [_hit(c) for c in chunks[at:at + 3]]


@needs_rulebooks
def test_a_list_over_two_chunks_is_read_whole_in_order_each_item_once() -> None:
    hits = _around(_chunks(), RECORDS)
    found = whole_list.read(hits, DOC, RECORDS)
    assert found is not None and found.complete
    assert normalise(found.lead_in) == RECORDS and verify(found.lead_in, found.hit.text)
    marks = [item.text.split()[0] for item in found.items]
    assert marks == ["(a)", "(b)", "(i)", "(ii)", "(iii)", "(c)", "(d)", "(e)", "(f)", "(g)"]
    assert [item.depth for item in found.items] == [0, 0, 1, 1, 1, 0, 0, 0, 0, 0]
    # Each item verbatim in the chunk it is quoted from; "(f)", cut where a chunk ends, is
    # kept in its whole reading; "(g)" keeps the words that close the list.
    assert all(verify(item.text, item.hit.text) for item in found.items)
    assert found.items[8].text.endswith("; and")
    assert "for at least six years" in found.items[9].text
    assert len({item.hit.chunk_id for item in found.items}) >= 2


@needs_rulebooks
def test_the_list_ends_at_the_next_clause_and_an_unread_rest_is_said() -> None:
    chunks = _chunks()
    lead_in = ("A Relevant Person must inform the Regulator in writing as soon as possible "
               "if, in the course of its activities carried on in or from the ADGM, it "
               "suspects or becomes aware that another Person outside of its business is "
               "engaged in:")
    found = whole_list.read(_around(chunks, lead_in), DOC, lead_in)
    assert found is not None and found.complete  # 4.4.2: "This requirement does not …"
    assert [item.text.split()[0] for item in found.items] == ["(a)", "(b)", "(c)"]
    # Without the chunk after it, the records list is read as far as it goes, and says so.
    first = _around(chunks, RECORDS)[:1]
    cut = whole_list.read(first, DOC, RECORDS)
    assert cut is not None and not cut.complete
    assert whole_list.read(first, uuid4(), RECORDS) is None  # another document's


@needs_rulebooks
def test_two_items_of_a_list_in_an_answer_bring_the_whole_list_each_item_cited() -> None:
    chunks = _chunks()
    at = next(i for i, c in enumerate(chunks) if RECORDS in c.text)
    lead_chunk, rest = _hit(chunks[at]), [_hit(c) for c in chunks[at + 1:at + 3]]
    later = rest[-1].model_copy(update={"lead_in": RECORDS})  # as retrieval.preceding says
    shown = [s for s in sentences_of([later]) if s.lead_in][:2]
    assert len(shown) == 2
    book = CitationBook()
    hits = [lead_chunk, *rest[:-1], later]
    lines = listed(shown, book, hits)
    assert lines[0] == f"- AML Rules, 4.5.1: {RECORDS} [1]"
    assert lines[1].startswith("  - (a) a copy of all documents") and lines[1].endswith("[2]")
    assert lines[3].startswith("    - (i) business correspondence")  # under "(b) … including:"
    assert len(lines) == 11 and lines[-1].startswith("  - (g) any other matter")
    texts = {h.chunk_id: h.text for h in hits}
    assert len(book.citations) == 11 and book.dropped == 0
    assert all(verify(c.quote, texts[c.chunk_id]) for c in book.citations if c.chunk_id)
    # Without the chunks that hold the rest, the two items are shown as before.
    assert listed(shown, CitationBook())[0] == f"- AML Rules, 4.5.1: {RECORDS}"


@needs_rulebooks
def test_chunks_that_stop_inside_a_list_are_told_apart() -> None:
    chunks = _chunks()
    at = next(i for i, c in enumerate(chunks) if RECORDS in c.text)
    assert list_context.ends_inside(chunks[at].text)  # lead-in, then "(a)" where it stops
    assert not list_context.ends_inside("4.6.1\tA Relevant Person must keep records.\n")


class _FailingIndex:
    async def preceding(self, tenant_id: UUID, chunk_ids: Sequence[UUID],
                        depth: int) -> dict[UUID, list[StoredChunk]]:
        raise ConnectionError("database went away")

    following = preceding


@needs_rulebooks
async def test_a_failed_lookup_adds_nothing_and_the_answer_still_comes() -> None:
    chunks = _chunks()
    at = next(i for i, c in enumerate(chunks) if RECORDS in c.text)
    hits = [_hit(chunks[at])]
    assert await list_context.complete(_FailingIndex(), uuid4(), hits) == []  # type: ignore[arg-type]


@needs_rulebooks
def test_a_chunk_that_does_not_carry_the_list_on_is_not_read_into_it() -> None:
    """One passage per chunk (as ObliQA's corpus is loaded): rule 8.4.1 with its whole list,
    then its guidance, which has a list of its own. The rule's list ends with its chunk."""
    text = load(AML).pages[0].text
    rule = text[text.index("8.4.1\tWhere a Relevant Person"):text.index("8.4.1.Guidance\t")]
    # As ObliQA gives a passage: its text without the clause number it is filed under.
    guidance = text[text.index("8.4.1.Guidance.9.\t") + 18:text.index("8.4.1.Guidance.10.")]
    assert "(a)" in guidance  # the guidance's own items must not join the rule's
    hits = [_hit(ChunkDraft(ordinal=n, text=t, page_start=1, page_end=1, char_start=0,
                            char_end=len(t), clause=c))
            for n, (t, c) in enumerate([(rule, "8.4.1"), (guidance, "8.4.1.Guidance.9")])]
    lead_in = rule.split("\n", 1)[0].split("\t", 1)[1]
    found = whole_list.read(hits, DOC, lead_in)
    assert found is not None and found.complete
    assert {item.hit.chunk_id for item in found.items} == {hits[0].chunk_id}
    assert found.items[-1].text.startswith("(g)")
