"""Tenants never see each other's chunks; the retrieval strategies keep their bounds."""

from __future__ import annotations

from pathlib import Path
from uuid import UUID

import pytest

from regintel.domain.documents import SearchScope
from regintel.errors import NotFound
from regintel.retrieval import list_context, preceding, strategies
from regintel.retrieval.confidence import Tier, assess
from tests.contract.library.conftest import Library
from tests.contract.library.files import make_pdf, make_text


async def test_a_tenant_never_retrieves_another_tenants_chunks(
    library: Library, tenant: UUID, other_tenant: UUID, tmp_path: Path,
) -> None:
    ours = await library.add(tenant, make_text(tmp_path / "a.txt",
                                               "Rule 3.1 Acme must hold capital of 8%."))
    theirs = await library.add(other_tenant, make_text(
        tmp_path / "b.txt", "Rule 3.1 Globex must hold capital of 10%."))
    hits = await library.retriever.search(tenant, "capital Globex 10%", k=10)
    assert hits and {h.document_id for h in hits} == {ours.id}
    # Naming the other tenant's document does not open it up.
    scoped = await library.retriever.search(
        tenant, "capital", k=10, scope=SearchScope(document_ids=(theirs.id,)))
    assert scoped == []
    with pytest.raises(NotFound):
        await library.documents.get(tenant, theirs.id)
    with pytest.raises(NotFound):
        await library.ingestion.delete(tenant, theirs.id)
    assert (await library.documents.get(other_tenant, theirs.id)).chunk_count > 0


async def test_term_coverage_counts_the_question_within_its_tenant(
    library: Library, tenant: UUID, other_tenant: UUID, tmp_path: Path,
) -> None:
    """How much of a question each chunk holds: the idf mass of its lexemes found in the
    chunk, a word the library never uses counting in the total; never across tenants."""
    body = "\n\n".join(f"Rule 1.{n} {sentence} " * 8 for n, sentence in enumerate([
        "A firm must keep records of each transaction for six years.",
        "Records may be kept in electronic form if they can be retrieved quickly.",
        "The board approves the firm's risk appetite every year.",
    ], start=1))
    ours = await library.add(tenant, make_text(tmp_path / "a.txt", body))
    theirs = await library.add(other_tenant, make_text(tmp_path / "b.txt", body))
    chunks = await library.index.document_chunks(tenant, ours.id)
    assert len(chunks) == 3
    ids = [c.id for c in chunks]
    held = await library.index.coverage(tenant, "transaction records", ids)
    assert held[ids[0]].matched_terms == 2 and held[ids[0]].idf_share == pytest.approx(1.0)
    board = await library.index.coverage(tenant, "board appetite", ids)
    assert board[ids[0]].matched_terms == 0 and board[ids[0]].idf_share == 0
    assert board[ids[2]].matched_terms == 2 and board[ids[2]].idf_share == pytest.approx(1.0)
    # "restaurants" is in no chunk: it stays in the total, so nothing covers the question.
    off_topic = await library.index.coverage(tenant, "transaction records of restaurants", ids)
    assert off_topic[ids[0]].query_terms == 3
    assert off_topic[ids[0]].idf_share < held[ids[0]].idf_share
    others = [c.id for c in await library.index.document_chunks(other_tenant, theirs.id)]
    assert await library.index.coverage(tenant, "transaction records", others) == {}


LONG_LIST = ("4.4.1\tA Relevant Person must appoint an MLRO who is resident in the UAE and "
             "who has the seniority to act on his own authority.\n"
             "4.5.1\tA Relevant Person must, where relevant, maintain the following records:\n"
             + "".join(f"({letter})\t{text} {'with every supporting document ' * 6};\n"
                       for letter, text in zip("abcdefg", [
                           "a copy of all documents obtained in undertaking CDD",
                           "records of the customer business relationship",
                           "internal notifications of suspicious activity made to its MLRO",
                           "Suspicious Activity Reports and their supporting documents",
                           "any relevant communications with the FIU",
                           "the documents in Rule 4.6.1",
                           "any other matter it is expressly required to record"], strict=True))
             + "for at least six years from the date on which the report was made.\n"
             "4.6.1\tA Relevant Person must keep its risk assessments up to date.\n")


async def test_a_list_item_is_shown_with_its_lead_in_from_an_earlier_chunk(
    library: Library, tenant: UUID, other_tenant: UUID, tmp_path: Path,
) -> None:
    """A chunk that opens inside a list learns the list's lead-in from the chunks before it
    (retrieval.preceding); the chunks before are read within the tenant only."""
    ours = await library.add(tenant, make_text(tmp_path / "a.txt", LONG_LIST))
    theirs = await library.add(other_tenant, make_text(tmp_path / "b.txt", LONG_LIST))
    chunks = await library.index.document_chunks(tenant, ours.id)
    inside = [c for c in chunks if c.clause == "4.5.1" and not c.text.startswith("4.5.1")]
    assert len(chunks) >= 3 and inside
    before = await library.index.preceding(tenant, [inside[0].id], 2)
    assert [c.ordinal for c in before[inside[0].id]] == \
        list(range(max(0, inside[0].ordinal - 2), inside[0].ordinal))
    hits = await library.retriever.search(tenant, "communications with the FIU", k=10)
    shown = await preceding.attach(library.index, tenant, hits)
    lead = "A Relevant Person must, where relevant, maintain the following records:"
    assert {h.chunk_id for h in shown if h.lead_in == lead} == \
        {h.chunk_id for h in hits if h.chunk_id in {c.id for c in inside}} != set()
    assert all(h.lead_in is None for h in shown if h.text.startswith("4."))
    others = [c.id for c in await library.index.document_chunks(other_tenant, theirs.id)]
    assert await library.index.preceding(tenant, others, 2) == {}


async def test_the_rest_of_a_list_is_fetched_within_the_tenant(
    library: Library, tenant: UUID, other_tenant: UUID, tmp_path: Path,
) -> None:
    """The chunks after a chunk that stops inside a list, and before one that opens inside
    it, are fetched to show the list whole (retrieval.list_context); only the tenant's."""
    ours = await library.add(tenant, make_text(tmp_path / "a.txt", LONG_LIST))
    theirs = await library.add(other_tenant, make_text(tmp_path / "b.txt", LONG_LIST))
    chunks = await library.index.document_chunks(tenant, ours.id)
    after = await library.index.following(tenant, [chunks[0].id], 2)
    assert [c.ordinal for c in after[chunks[0].id]] == [1, 2][:len(chunks) - 1]
    hits = await preceding.attach(library.index, tenant, await library.retriever.search(
        tenant, "communications with the FIU", k=1))
    rest = await list_context.complete(library.index, tenant, hits)
    assert rest and all(h.completes == hits[0].chunk_id and h.score == 0 for h in rest)
    assert {h.chunk_id for h in rest} <= {c.id for c in chunks} - {hits[0].chunk_id}
    others = [c.id for c in await library.index.document_chunks(other_tenant, theirs.id)]
    assert await library.index.following(tenant, others, 2) == {}
    assert await list_context.complete(library.index, other_tenant, hits) == []


async def test_search_finds_the_clause_that_answers(library: Library, tenant: UUID,
                                                    tmp_path: Path) -> None:
    await library.add(tenant, make_pdf(tmp_path / "rules.pdf"))
    hits = await library.retriever.search(
        tenant, "When must enhanced due diligence be applied to politically exposed persons?",
        k=3)
    assert hits[0].page_start == 2 and "Politically Exposed Person" in hits[0].text
    assert all(0.0 <= h.score <= 1.0 for h in hits)
    assert hits == sorted(hits, key=lambda h: -h.score)


async def _many(library: Library, tenant: UUID, tmp_path: Path, n: int) -> list[UUID]:
    ids = []
    for i in range(n):
        body = "\n\n".join(f"Rule {i}.{j} Topic {j}: a firm must report item {j} of doc {i} "
                           "to the regulator within ten business days." * 3 for j in range(12))
        ids.append((await library.add(tenant, make_text(tmp_path / f"d{i}.txt", body))).id)
    return ids


async def test_per_document_and_adaptive_k_bounds(library: Library, tenant: UUID,
                                                  tmp_path: Path) -> None:
    ids = await _many(library, tenant, tmp_path, 5)
    batches = await strategies.per_document(library.retriever, tenant, "report to the regulator",
                                            ids, per_doc=3)
    assert len(batches) == 15
    assert all(sum(h.document_id == d for h in batches) == 3 for d in ids)
    adaptive = await strategies.adaptive_k(library.retriever, tenant, "report to the regulator",
                                           ids, threshold=0.0)
    per_doc = {d: sum(h.document_id == d for h in adaptive) for d in ids}
    assert len(adaptive) <= 15 and all(3 <= n <= 5 for n in per_doc.values())
    strict = await strategies.adaptive_k(library.retriever, tenant, "report to the regulator",
                                         ids[:2], threshold=1.01)
    assert len(strict) == 6  # only the guaranteed three per document


async def test_stratified_sample_spreads_over_the_document(library: Library, tenant: UUID,
                                                           tmp_path: Path) -> None:
    assert strategies.stratified_size(40) == 10
    assert strategies.stratified_size(100) == 18
    assert strategies.stratified_size(1000) == 30
    assert strategies.stratified_size(4) == 4
    body = "\n\n".join(f"Rule {j}.1 Paragraph {j} says a firm must do thing {j}. " * 9
                       for j in range(80))
    document = await library.add(tenant, make_text(tmp_path / "long.txt", body))
    sample = await strategies.stratified_sample(library.index, tenant, document.id)
    total = document.chunk_count
    assert len(sample) == strategies.stratified_size(total)
    ordinals = [c.ordinal for c in sample]
    assert ordinals == sorted(ordinals) and len(set(ordinals)) == len(ordinals)
    assert ordinals[0] < total * 0.1 and ordinals[-1] > total * 0.9


async def test_theme_retrieval_per_target(library: Library, tenant: UUID, tmp_path: Path) -> None:
    ids = await _many(library, tenant, tmp_path, 2)
    themes = await strategies.by_theme(library.retriever, tenant, ["reporting deadline"], ids,
                                       per_theme=2)
    assert set(themes["reporting deadline"]) == set(ids)
    assert all(len(hits) == 2 and all(h.document_id == d for h in hits)
               for d, hits in themes["reporting deadline"].items())


def test_tiers_follow_the_top_score() -> None:
    from regintel.domain.documents import ChunkHit, DocType

    def hit(score: float) -> ChunkHit:
        return ChunkHit(chunk_id=UUID(int=1), document_id=UUID(int=2), document_title="T",
                        document_version="", doc_type=DocType.REGULATION, ordinal=0, text="x",
                        page_start=1, page_end=1, clause=None, char_start=0, char_end=1,
                        score=score)

    assert assess([hit(0.9), hit(0.1)], high=0.6, medium=0.3).tier is Tier.HIGH
    assert assess([hit(0.4)], high=0.6, medium=0.3).tier is Tier.MEDIUM
    assert assess([hit(0.1)], high=0.6, medium=0.3).tier is Tier.LOW
    assert assess([], high=0.6, medium=0.3).tier is Tier.LOW
