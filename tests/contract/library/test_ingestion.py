"""Ingestion through the real pipeline: each format round-trips with pages, clauses and offsets
that find the quote again; re-uploads add nothing; delete removes chunks and the file."""

from __future__ import annotations

from pathlib import Path
from uuid import UUID

import pytest
from sqlalchemy import text

from regintel.adapters.parsers import AutoParser
from regintel.domain.documents import DocStatus, DocType
from tests.contract.library.conftest import Library
from tests.contract.library.files import (
    make_docx,
    make_html,
    make_markdown,
    make_pdf,
    make_text,
)


async def _verify_offsets(library: Library, tenant: UUID, document_id: UUID) -> None:
    """Every stored chunk is found again, verbatim, at its offsets in a fresh parse."""
    document = await library.documents.get(tenant, document_id)
    parsed = AutoParser().parse(library.files.read(document.file_path),
                                document.original_filename)
    pages = {p.number: p.text for p in parsed.pages}
    chunks = await library.index.document_chunks(tenant, document_id)
    assert chunks
    for chunk in chunks:
        assert chunk.page_start == chunk.page_end
        assert pages[chunk.page_start][chunk.char_start:chunk.char_end] == chunk.text


async def test_multi_page_pdf_round_trips(library: Library, tenant: UUID, tmp_path: Path) -> None:
    document = await library.add(tenant, make_pdf(tmp_path / "rules.pdf"), title="Test Rules",
                                 version="v1", set_name="ADGM")
    assert document.status is DocStatus.READY, document.status_reason
    assert document.page_count == 3 and document.chunk_count >= 3
    assert document.set is not None and document.set.name == "ADGM"
    chunks = await library.index.document_chunks(tenant, document.id)
    by_page = {c.page_start: c for c in chunks}
    assert set(by_page) == {1, 2, 3}
    assert "Customer Due Diligence" in by_page[2].text
    assert by_page[2].clause is not None and by_page[2].clause.startswith("5.13A.5")
    assert by_page[3].clause == "Article 6"
    await _verify_offsets(library, tenant, document.id)


@pytest.mark.parametrize(("maker", "name", "needle", "clause"), [
    (make_docx, "records.docx", "six years", "Rule 8.2"),
    (make_html, "notice.html", "sanctions lists", "Article 12"),
    (make_markdown, "policy.md", "material outsourcing", "Section 3.4"),
    (make_text, "fund.txt", "monthly", "Rule 2.1"),
])
async def test_each_format_round_trips(library: Library, tenant: UUID, tmp_path: Path,
                                       maker: object, name: str, needle: str,
                                       clause: str) -> None:
    path = maker(tmp_path / name)  # type: ignore[operator]
    document = await library.add(tenant, path, doc_type=DocType.POLICY)
    assert document.status is DocStatus.READY, document.status_reason
    chunks = await library.index.document_chunks(tenant, document.id)
    hit = next(c for c in chunks if needle in c.text)
    assert hit.clause is not None and hit.clause.startswith(clause)
    assert "<script>" not in hit.text and "alert(1)" not in hit.text
    await _verify_offsets(library, tenant, document.id)


async def test_table_markers_are_kept(library: Library, tenant: UUID, tmp_path: Path) -> None:
    document = await library.add(tenant, make_text(tmp_path / "fund.txt"))
    chunks = await library.index.document_chunks(tenant, document.id)
    assert any("\\Table Start" in c.text and "\\Table End" in c.text for c in chunks)


async def test_same_file_twice_is_one_document(library: Library, tenant: UUID,
                                               tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "rules.pdf")
    first = await library.add(tenant, path)
    again = await library.ingestion.submit(tenant, data=path.read_bytes(), filename="copy.pdf",
                                           title="Another title", doc_type=DocType.REGULATION)
    assert not again.created and again.document.id == first.id
    assert len(await library.documents.list(tenant)) == 1
    assert len(await library.index.document_chunks(tenant, first.id)) == first.chunk_count


async def test_new_version_links_to_the_earlier_one(library: Library, tenant: UUID,
                                                   tmp_path: Path) -> None:
    old = await library.add(tenant, make_text(tmp_path / "v1.txt", "Rule 1.1 Old text."),
                            title="Fund Rules", version="2023")
    new = await library.add(tenant, make_text(tmp_path / "v2.txt", "Rule 1.1 New text."),
                            title="fund rules", version="2024")
    assert new.id != old.id and new.supersedes_id == old.id
    assert {d.id for d in await library.documents.list(tenant)} == {old.id, new.id}


async def test_delete_removes_chunks_and_file(library: Library, tenant: UUID,
                                              tmp_path: Path) -> None:
    keep = await library.add(tenant, make_text(tmp_path / "keep.txt", "Rule 9.9 Keep me."))
    gone = await library.add(tenant, make_pdf(tmp_path / "rules.pdf"))
    stored = library.files_root / gone.file_path
    assert stored.exists()
    await library.ingestion.delete(tenant, gone.id)
    assert not stored.exists()
    async with library.database.system_session() as session:
        left = (await session.execute(text("SELECT count(*) FROM chunks WHERE document_id = :d"),
                                      {"d": gone.id})).scalar()
        terms = (await session.execute(text(
            "SELECT count(*) FROM chunk_terms ct JOIN chunks c ON c.id = ct.chunk_id "
            "WHERE c.document_id = :d"), {"d": gone.id})).scalar()
    assert left == 0 and terms == 0
    assert (await library.documents.get(tenant, keep.id)).chunk_count == keep.chunk_count
    assert (library.files_root / keep.file_path).exists()


async def test_sets_are_reused_case_insensitively(library: Library, tenant: UUID,
                                                  tmp_path: Path) -> None:
    a = await library.add(tenant, make_text(tmp_path / "a.txt", "Rule 1.1 A."), set_name="AML")
    b = await library.add(tenant, make_text(tmp_path / "b.txt", "Rule 1.1 B."),
                          set_name="  aml ")
    c = await library.add(tenant, make_text(tmp_path / "c.txt", "Rule 1.1 C."), set_name="Tax")
    assert a.set is not None and b.set is not None and c.set is not None
    assert a.set.id == b.set.id and a.set.name == "AML"
    assert c.set.id != a.set.id and c.set.colour != a.set.colour
