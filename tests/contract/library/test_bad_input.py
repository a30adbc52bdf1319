"""Bad input gets a clear error or a failed status with its reason, and nothing already stored
is touched."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from uuid import UUID

import pytest

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.adapters.postgres.database import Database
from regintel.domain.documents import DocStatus, DocType, SearchScope
from regintel.errors import DocumentRejected, InvalidRequest, NotFound
from regintel.ports.embedder import Vectors
from tests.contract.library.conftest import Library, build_library
from tests.contract.library.files import make_pdf, make_text


@pytest.fixture
async def baseline(library: Library, tenant: UUID, tmp_path: Path) -> UUID:
    document = await library.add(tenant, make_text(tmp_path / "base.txt",
                                                   "Rule 4.1 A firm must keep capital of 8%."))
    assert document.status is DocStatus.READY
    return document.id


async def _untouched(library: Library, tenant: UUID, baseline: UUID) -> None:
    documents = await library.documents.list(tenant)
    assert [d.id for d in documents if d.status is DocStatus.READY] == [baseline]
    hits = await library.retriever.search(tenant, "capital of 8%", k=3)
    assert hits and hits[0].document_id == baseline


@pytest.mark.parametrize(("name", "data", "message"), [
    ("empty.pdf", b"", "the file is empty"),
    ("blank.txt", b"   \n\t ", "the file is empty"),
    ("photo.pdf", b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, "unsupported file type"),
    ("latin1.txt", "Règle 1.1 Le capital doit être maintenu.".encode("latin-1"), "UTF-8"),
    ("program.docx", b"MZ\x90\x00" + b"\x00" * 64, "unsupported file type"),
])
async def test_rejected_at_upload_with_a_clear_message(
    library: Library, tenant: UUID, baseline: UUID, name: str, data: bytes, message: str,
) -> None:
    with pytest.raises(DocumentRejected, match=message):
        await library.ingestion.submit(tenant, data=data, filename=name, title="Bad",
                                       doc_type=DocType.POLICY)
    await _untouched(library, tenant, baseline)


async def test_oversize_file_is_refused_before_it_is_stored(
    database: Database, embedder: LocalEmbedder, tmp_path: Path,
) -> None:
    small = await build_library(database, embedder, tmp_path / "files", max_bytes=1000)
    try:
        tenant = await small.documents.ensure_tenant("acme")
        with pytest.raises(DocumentRejected, match="the limit is"):
            await small.ingestion.submit(tenant, data=b"x" * 1001, filename="big.txt",
                                         title="Big", doc_type=DocType.POLICY)
        assert await small.documents.list(tenant) == []
        assert not (tmp_path / "files").exists()
    finally:
        await small.queue.close()


@pytest.mark.parametrize(("name", "build", "reason"), [
    ("corrupt.pdf", lambda p: p.write_bytes(make_pdf(p).read_bytes()[:400]), "PDF"),
    ("encrypted.pdf", None, "password-protected"),
])
async def test_broken_pdf_fails_with_its_reason(
    library: Library, tenant: UUID, baseline: UUID, tmp_path: Path, name: str,
    build: object, reason: str,
) -> None:
    path = tmp_path / name
    if build is None:
        import pymupdf

        doc = pymupdf.open()
        doc.new_page().insert_text((72, 72), "Secret rules")
        doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256,  # type: ignore[attr-defined]
                 user_pw="u", owner_pw="o")
        doc.close()
    else:
        build(path)  # type: ignore[operator]
    try:
        document = await library.add(tenant, path)
        told = document.status_reason or ""
        assert document.status is DocStatus.FAILED and document.chunk_count == 0
    except DocumentRejected as exc:  # refused at upload already: equally fine
        told = str(exc)
    assert reason in told
    await _untouched(library, tenant, baseline)


class FlakyEmbedder:
    """The real embedder behind a fault: the first ``failures`` calls raise, as a model server
    or a full disk would."""

    def __init__(self, inner: LocalEmbedder, failures: int) -> None:
        self.inner, self.failures = inner, failures

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        if self.failures > 0:
            self.failures -= 1
            raise OSError("transient failure")
        return self.inner.embed(texts)


async def test_transient_failure_is_retried_then_given_up_with_a_reason(
    database: Database, embedder: LocalEmbedder, tmp_path: Path,
) -> None:
    flaky = FlakyEmbedder(embedder, failures=10)
    lib = await build_library(database, flaky, tmp_path / "files")
    try:
        tenant = await lib.documents.ensure_tenant("acme")
        submission = await lib.ingestion.submit(
            tenant, data=b"Rule 1.1 A firm must report.", filename="r.txt", title="R",
            doc_type=DocType.REGULATION)
        for _ in range(5):  # first run + 3 retries; skip the back-off waits
            await lib.queue.run_worker(wait=False)
            async with database.system_session() as s:
                from sqlalchemy import text

                await s.execute(text("UPDATE procrastinate_jobs SET scheduled_at = now() "
                                     "WHERE status = 'todo'"))
        document = await lib.documents.get(tenant, submission.document.id)
        assert document.status is DocStatus.FAILED
        assert document.status_reason is not None and "several attempts" in document.status_reason
        assert document.chunk_count == 0
        # Uploading the same file again retries it; now the embedder works.
        flaky.failures = 0
        again = await lib.ingestion.submit(
            tenant, data=b"Rule 1.1 A firm must report.", filename="r.txt", title="R",
            doc_type=DocType.REGULATION)
        assert not again.created
        await lib.queue.run_worker(wait=False)
        assert (await lib.documents.get(tenant, document.id)).status is DocStatus.READY
    finally:
        await lib.queue.close()


async def test_half_done_document_is_never_searched(library: Library, tenant: UUID,
                                                    baseline: UUID) -> None:
    await library.documents.set_status(tenant, baseline, DocStatus.PROCESSING)
    assert await library.retriever.search(tenant, "capital of 8%", k=5) == []
    await library.documents.set_status(tenant, baseline, DocStatus.READY)
    assert await library.retriever.search(tenant, "capital of 8%", k=5)


async def test_six_tagged_documents_are_refused(library: Library, tenant: UUID) -> None:
    scope = SearchScope(document_ids=tuple(UUID(int=i) for i in range(6)))
    with pytest.raises(InvalidRequest, match="at most 5"):
        await library.retriever.search(tenant, "capital", scope=scope)


async def test_empty_and_huge_queries_are_refused(library: Library, tenant: UUID) -> None:
    with pytest.raises(InvalidRequest, match="empty"):
        await library.retriever.search(tenant, "   ")
    with pytest.raises(InvalidRequest, match="longer than"):
        await library.retriever.search(tenant, "x" * 20_000)


async def test_unknown_document_is_not_found(library: Library, tenant: UUID) -> None:
    with pytest.raises(NotFound):
        await library.documents.get(tenant, UUID(int=7))
