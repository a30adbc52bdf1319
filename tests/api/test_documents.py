"""The document library over HTTP: uploads that must be refused before harm, status, listing
by set, autocomplete, delete."""

from __future__ import annotations

import hashlib
import io
import zipfile
from collections.abc import AsyncIterator
from uuid import UUID

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.adapters.postgres.unit_vector_repo import PostgresUnitVectorStore
from regintel.chat.offline.ranking import sentences_of
from regintel.container import Container
from regintel.domain.documents import ChunkHit, DocStatus, DocType, StoredChunk
from regintel.obligations.matrix import row_text
from regintel.obligations.policy_text import policy_units
from regintel.retrieval import preceding
from regintel.settings import Settings
from tests.api.conftest import MAX_UPLOAD, POLICY_TEXT, User, ingest, upload

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


def _zip_bomb_docx() -> bytes:
    """A DOCX-shaped ZIP whose text part inflates to 201 MB from a few hundred KB."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        with archive.open("word/document.xml", "w", force_zip64=True) as part:
            block = b"\x00" * (1024 * 1024)
            for _ in range(201):
                part.write(block)
    return buffer.getvalue()


async def test_text_upload_is_queued_then_ready(alice: User, container: Container) -> None:
    response = await upload(alice, POLICY_TEXT.encode(), "aml.txt", title="AML Policy",
                            version="1.0", set_name="Policies")
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["created"] is True
    document = body["document"]
    assert document["status"] == "queued" and document["set"]["name"] == "Policies"
    assert "file_path" not in document and "content_hash" not in document
    ready = await ingest(container, alice, document["id"])
    assert ready["status"] == "ready" and ready["chunk_count"] >= 1
    again = await upload(alice, POLICY_TEXT.encode(), "copy.txt", title="AML Policy")
    assert again.status_code == 200 and again.json()["created"] is False


async def test_lying_extension_is_refused(alice: User) -> None:
    response = await upload(alice, PNG, "policy.pdf")
    assert response.status_code == 400
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["code"] == "document_rejected"
    assert "PNG" in response.json()["title"]
    assert (await alice.client.get("/api/documents")).json()["count"] == 0


async def test_zip_bomb_docx_is_refused(alice: User) -> None:
    bomb = _zip_bomb_docx()
    assert len(bomb) < MAX_UPLOAD
    response = await upload(alice, bomb, "policy.docx")
    assert response.status_code == 400, response.text
    assert "too large to process safely" in response.json()["title"]


async def test_empty_file_is_refused(alice: User) -> None:
    response = await upload(alice, b"", "empty.pdf")
    assert response.status_code == 400
    assert response.json()["code"] == "document_rejected"


async def test_corrupt_pdf_fails_with_a_reason(alice: User, container: Container) -> None:
    response = await upload(alice, b"%PDF-1.7\n" + b"\x13\x37garbage" * 200, "broken.pdf")
    assert response.status_code == 201, response.text
    document = await ingest(container, alice, response.json()["document"]["id"])
    assert document["status"] == "failed" and document["status_reason"]


async def test_oversize_body_is_refused_before_it_is_read(alice: User) -> None:
    boundary = "regintelboundary"
    head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nBig\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"doc_type\"\r\n\r\n"
            f"policy\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; "
            f"filename=\"big.txt\"\r\nContent-Type: text/plain\r\n\r\n").encode()
    chunk, chunks = b"a" * (256 * 1024), 200  # 50 MB offered, no Content-Length
    sent = 0

    async def body() -> AsyncIterator[bytes]:
        nonlocal sent
        yield head
        for _ in range(chunks):
            sent += len(chunk)
            yield chunk
        yield f"\r\n--{boundary}--\r\n".encode()

    response = await alice.client.post(
        "/api/documents", content=body(),
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
    assert response.status_code == 413, response.text
    assert response.json()["code"] == "payload_too_large"
    assert sent <= MAX_UPLOAD + 2 * len(chunk)  # stopped at the limit, not at 50 MB


async def test_declared_oversize_is_refused_without_reading(alice: User) -> None:
    response = await alice.client.post(
        "/api/documents", content=b"x",
        headers={"Content-Type": "multipart/form-data; boundary=b",
                 "Content-Length": str(MAX_UPLOAD * 10)})
    assert response.status_code == 413


async def test_missing_metadata_and_wrong_content_type(alice: User) -> None:
    no_type = await alice.client.post("/api/documents", data={"title": "x"},
                                      files={"file": ("a.txt", b"hello world")})
    assert no_type.status_code == 422
    as_json = await alice.client.post("/api/documents", json={"title": "x"})
    assert as_json.status_code == 400


async def test_list_grouped_by_set_with_colours_and_autocomplete(alice: User) -> None:
    for i, set_name in enumerate(("ADGM Rules", "ADGM Guidance", "", "EU Law")):
        response = await upload(alice, f"Rule {i}. A firm must keep records.".encode(),
                                f"r{i}.txt", title=f"Rule {i}", doc_type="regulation",
                                set_name=set_name)
        assert response.status_code == 201, response.text
    listed = (await alice.client.get("/api/documents")).json()
    assert listed["count"] == 4
    names = [g["set"]["name"] if g["set"] else None for g in listed["groups"]]
    assert names == ["ADGM Guidance", "ADGM Rules", "EU Law", None]
    assert all(g["set"] is None or g["set"]["colour"].startswith("#") for g in listed["groups"])
    found = (await alice.client.get("/api/sets", params={"q": "adgm"})).json()
    assert [s["name"] for s in found["data"]] == ["ADGM Guidance", "ADGM Rules"]
    contains = (await alice.client.get("/api/sets", params={"q": "law"})).json()
    assert [s["name"] for s in contains["data"]] == ["EU Law"]


async def test_delete_document(alice: User) -> None:
    created = (await upload(alice, b"A firm must report.", "x.txt")).json()["document"]
    assert (await alice.client.delete(f"/api/documents/{created['id']}")).status_code == 204
    assert (await alice.client.get(f"/api/documents/{created['id']}")).status_code == 404
    assert (await alice.client.delete(f"/api/documents/{created['id']}")).status_code == 404


REGULATION_TEXT = """Test Rules

1. CUSTOMER DUE DILIGENCE

1.1 Application
1.1.1 A Relevant Person must undertake Customer Due Diligence before it establishes a
business relationship with a customer.
1.1.2 In undertaking Customer Due Diligence, a Relevant Person must:
(a) identify the customer;
(b) verify the customer's identity using reliable, independent source documents;
(c) identify any beneficial owner of the customer; and
(d) understand the purpose and intended nature of the business relationship.
"""


async def test_a_ready_document_is_prepared_for_audit(alice: User,
                                                      container: Container) -> None:
    """The ingestion's follow-up job embeds what an audit reads of each document (a policy's
    clauses, a regulation's obligations) and keeps it in the tenant's store."""
    store = PostgresUnitVectorStore(container.database)
    model = container.embedder.model_name
    for text, doc_type, texts in ((POLICY_TEXT, "policy", _source_texts),
                                  (REGULATION_TEXT, "regulation", _target_texts)):
        created = await upload(alice, text.encode(), f"{doc_type}.txt",
                               title=f"Prepared {doc_type}", doc_type=doc_type)
        document_id = UUID(created.json()["document"]["id"])
        assert (await ingest(container, alice, str(document_id)))["status"] == "ready"
        chunks = await container.chunk_index.document_chunks(alice.tenant_id, document_id)
        expected = await texts(container, alice.tenant_id, document_id, chunks)
        keys = [(document_id, hashlib.sha256(t.encode()).digest()) for t in expected]
        found = await store.load(alice.tenant_id, model, keys)
        assert len(expected) >= 4 and set(found) == set(keys), doc_type


async def test_a_deployment_may_leave_documents_unprepared(
        alice: User, api_settings: Settings, embedder: LocalEmbedder) -> None:
    """With upload.prepare_audits off, a ready document has no follow-up: its first audit
    embeds what it reads."""
    settings = api_settings.model_copy(update={"upload": api_settings.upload.model_copy(
        update={"prepare_audits": False})})
    container = await Container.open(settings, embedder=embedder)
    try:
        submission = await container.ingestion.submit(
            alice.tenant_id, data=REGULATION_TEXT.encode(), filename="rules.txt",
            title="Unprepared rules", doc_type=DocType.REGULATION)
        [document] = await container.ingestion.run_until_done(
            alice.tenant_id, [submission.document.id], timeout_s=120)
        assert document.status is DocStatus.READY
        chunks = await container.chunk_index.document_chunks(alice.tenant_id, document.id)
        keys = [(document.id, hashlib.sha256(t.encode()).digest())
                for t in await _target_texts(container, alice.tenant_id, document.id, chunks)]
        assert keys
        store = PostgresUnitVectorStore(container.database)
        assert await store.load(alice.tenant_id, embedder.model_name, keys) == {}
    finally:
        await container.close()


async def _source_texts(container: Container, tenant_id: UUID, document_id: UUID,
                        chunks: list[StoredChunk]) -> list[str]:
    """What the matrix audit reads of a policy: each clause in its context."""
    return [u.context for u in policy_units(chunks)]


async def _target_texts(container: Container, tenant_id: UUID, document_id: UUID,
                        chunks: list[StoredChunk]) -> list[str]:
    """What it reads of a regulation: each obligation of its register, each item of a list."""
    rows = await container.registers.get(tenant_id, document_id)
    return [row_text(r) for r in rows] + [i.text for r in rows for i in r.items]


async def test_a_ready_document_is_prepared_for_answers(alice: User, mallory: User,
                                                        container: Container) -> None:
    """The ingestion's follow-up job embeds each sentence as an offline answer reads it (with
    the lead-in the chunks before give it) into the tenant's store, so the answer reads them
    back; another tenant's store holds none of them."""
    created = await upload(alice, REGULATION_TEXT.encode(), "answers.txt",
                           title="Rules answered from", doc_type="regulation")
    document_id = UUID(created.json()["document"]["id"])
    assert (await ingest(container, alice, str(document_id)))["status"] == "ready"
    document = await container.documents.get(alice.tenant_id, document_id)
    chunks = await container.chunk_index.document_chunks(alice.tenant_id, document_id)
    hits = await preceding.attach(container.chunk_index, alice.tenant_id,
                                  [ChunkHit.of(c, document, 1.0) for c in chunks])
    texts = {s.in_context for s in sentences_of(hits)}
    keys = [(document_id, hashlib.sha256(t.encode()).digest()) for t in texts]
    store = PostgresUnitVectorStore(container.database)
    model = container.embedder.model_name
    assert len(keys) >= 2  # the two rules (list items are read with their lead-in)
    assert set(await store.load(alice.tenant_id, model, keys)) == set(keys)
    assert await store.load(mallory.tenant_id, model, keys) == {}
