"""A ready document's follow-up jobs (the product's: its audit units embedded ahead,
chat.offline.audit_units): queued with the document's ids once it is ready, never for a
failed one; a follow-up that cannot be queued, or that fails, leaves the document ready."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from uuid import UUID

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.adapters.postgres.database import Database
from regintel.domain.documents import DocStatus, DocType
from regintel.ingestion.service import FOLLOW_UP_PRIORITY, FOLLOW_UP_QUEUE
from tests.contract.library.conftest import Library, build_library

RULE = b"Rule 1.1 A firm must report every suspicious transaction to the MLRO."


async def _submit(library: Library, tenant: UUID, data: bytes, name: str) -> UUID:
    submission = await library.ingestion.submit(tenant, data=data, filename=name, title=name,
                                                doc_type=DocType.REGULATION)
    [document] = await library.ingestion.run_until_done(tenant, [submission.document.id],
                                                        timeout_s=120)
    return document.id


async def test_a_ready_document_queues_its_follow_ups(database: Database,
                                                      embedder: LocalEmbedder,
                                                      tmp_path: Path) -> None:
    ran: list[dict[str, Any]] = []

    async def record(**payload: Any) -> None:
        ran.append(payload)

    library = await build_library(database, embedder, tmp_path / "files",
                                  follow_ups=("test.follow_up",))
    library.queue.register("test.follow_up", record, queue=FOLLOW_UP_QUEUE,
                           priority=FOLLOW_UP_PRIORITY, retries=0)
    try:
        tenant = await library.documents.ensure_tenant("acme")
        ready = await _submit(library, tenant, RULE, "rule.txt")
        failed = await _submit(library, tenant, b"%PDF-1.7 cut short", "broken.pdf")
        assert (await library.documents.get(tenant, ready)).status is DocStatus.READY
        assert (await library.documents.get(tenant, failed)).status is DocStatus.FAILED
        assert ran == [{"tenant_id": str(tenant), "document_id": str(ready)}]
        # A job run again on a ready document (a retry after it published) queues them anew.
        await library.ingestion.run_job(str(tenant), str(ready))
        await library.ingestion.run_follow_ups()
        assert ran == [{"tenant_id": str(tenant), "document_id": str(ready)}] * 2
    finally:
        await library.queue.close()


async def test_a_follow_up_that_fails_leaves_the_document_ready(database: Database,
                                                                embedder: LocalEmbedder,
                                                                tmp_path: Path) -> None:
    async def fail(**payload: Any) -> None:
        raise OSError("the unit vector store is down")

    # One follow-up no worker knows (it cannot be queued), one that raises.
    library = await build_library(database, embedder, tmp_path / "files",
                                  follow_ups=("test.unknown", "test.failing"))
    library.queue.register("test.failing", fail, queue=FOLLOW_UP_QUEUE, retries=0)
    try:
        tenant = await library.documents.ensure_tenant("acme")
        document_id = await _submit(library, tenant, RULE, "rule.txt")
        document = await library.documents.get(tenant, document_id)
        assert document.status is DocStatus.READY and document.chunk_count >= 1
        assert await library.retriever.search(tenant, "suspicious transaction", k=3)
    finally:
        await library.queue.close()
