"""Ingestion: accept a file (size, type, dedupe, version link), then a queued job parses, chunks,
embeds and publishes it. A document is searchable only once all its chunks are in."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from uuid import UUID

import numpy as np

from regintel.domain.documents import DocStatus, DocType, Document, NewDocument
from regintel.errors import DocumentRejected, InvalidRequest
from regintel.ingestion.chunking import chunk_document
from regintel.ingestion.versions import check_new_version, version_base
from regintel.ports.embedder import Embedder, Vectors
from regintel.ports.library import DocumentStore, FileStore
from regintel.ports.parser import DocumentParser
from regintel.ports.queue import JobQueue, WorkerLost

log = logging.getLogger(__name__)

INGEST_JOB = "ingest.document"
INGEST_QUEUE = "ingest"  # drained on its own by a process waiting for its documents
# Work that follows a document's publication (its audit units embedded): queued once it is
# ready, taken after any waiting ingestion, never holding up the document's status.
FOLLOW_UP_QUEUE = "follow-up"
FOLLOW_UP_PRIORITY = -1
# Chunks embedded per step of a document's progress: small enough for a steady bar on a
# rulebook of thousands of chunks, large enough that the model still batches efficiently.
EMBED_BATCH = 32


@dataclass(frozen=True)
class Submission:
    document: Document
    created: bool  # False: the same bytes were already in this tenant's library


class IngestionService:
    def __init__(self, *, documents: DocumentStore, files: FileStore, parser: DocumentParser,
                 embedder: Embedder, queue: JobQueue, max_bytes: int,
                 chunk_size: int = 1000, chunk_overlap: int = 150,
                 follow_ups: Sequence[str] = ()) -> None:
        """``follow_ups``: jobs (registered on FOLLOW_UP_QUEUE) queued with the tenant and
        document ids when a document is ready."""
        self._documents = documents
        self._files = files
        self._parser = parser
        self._embedder = embedder
        self._queue = queue
        self._max_bytes = max_bytes
        self._chunk_size = chunk_size
        self._chunk_overlap = chunk_overlap
        self._follow_ups = tuple(follow_ups)

    async def run_until_done(self, tenant_id: UUID, ids: Sequence[UUID], *,
                             timeout_s: float) -> list[Document]:
        """Run queued jobs in this process until the documents are ready or failed, then
        their follow-ups. A server or worker on the same database may pick the jobs up
        first; then we simply watch."""
        deadline = time.monotonic() + timeout_s
        while True:
            await self._queue.run_worker(wait=False, queues=[INGEST_QUEUE])
            documents = [await self._documents.get(tenant_id, i) for i in ids]
            if all(d.status in (DocStatus.READY, DocStatus.FAILED) for d in documents) \
                    or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.5)
        if any(d.status is DocStatus.READY for d in documents):
            await self.run_follow_ups()
        return documents

    async def run_follow_ups(self) -> None:
        """Run the queued follow-ups in this process (a server's worker takes them itself)."""
        if self._follow_ups:
            await self._queue.run_worker(wait=False, queues=[FOLLOW_UP_QUEUE])

    async def queue_follow_ups(self, tenant_id: UUID, document_id: UUID) -> None:
        """Queues the follow-ups of a document that is ready (or whose chunks were just
        re-embedded); one that cannot be queued is logged: the follow-ups save time, the
        document is ready without them."""
        for job in self._follow_ups:
            try:
                await self._queue.defer(job, queueing_lock=f"{job}:{document_id}",
                                        tenant_id=str(tenant_id), document_id=str(document_id))
            except Exception as exc:  # one already waiting for the document included
                log.warning("%s not queued for document %s: %r", job, document_id, exc)

    def register_jobs(self) -> None:
        self._queue.register(INGEST_JOB, self.run_job, queue=INGEST_QUEUE, retries=3,
                             on_give_up=self._give_up)

    async def submit(self, tenant_id: UUID, *, data: bytes, filename: str, title: str,
                     doc_type: DocType | None, version: str = "", set_name: str | None = None,
                     uploaded_by: UUID | None = None, supersedes_id: UUID | None = None,
                     version_of: str | None = None,
                     effective_date: date | None = None) -> Submission:
        """``version_of`` (a document's id or exact title): the file is a new version of that
        document, labelled ``version``, in force from ``effective_date`` (default: from now);
        its title, type and set default to the document's. Refused, with nothing stored,
        when that document is not in this tenant's library."""
        if len(data) > self._max_bytes:
            raise DocumentRejected(
                f"the file is {len(data) / 1_048_576:.1f} MB; the limit is "
                f"{self._max_bytes / 1_048_576:.0f} MB", hint="split the document or compress it")
        base = None
        if version_of is not None and version_of.strip():
            base = await version_base(self._documents, tenant_id, version_of)
            await check_new_version(self._documents, tenant_id, base, version=version,
                                    doc_type=doc_type)
            doc_type, title = base.doc_type, title.strip() or base.title
        if not title.strip():
            raise InvalidRequest("a document needs a title")
        if doc_type is None:
            raise InvalidRequest("a document needs a type", hint="regulation or policy")
        mime_type = self._parser.detect(data, filename)
        digest = hashlib.sha256(data).hexdigest()
        existing = await self._documents.find_by_hash(tenant_id, digest)
        if existing is not None:
            if base is not None and (existing.family_id or existing.id) != \
                    (base.family_id or base.id):
                raise InvalidRequest(
                    f"this file is already in the library as \"{existing.title}\" "
                    f"({existing.id}), not a version of \"{base.title}\"",
                    hint="delete that document first to upload the file as a new version")
            return Submission(await self._restart_if_stuck(tenant_id, existing), created=False)
        family_id = None
        if base is not None:
            family_id = base.family_id or base.id  # the chain sets what it supersedes
            supersedes_id = None
        elif supersedes_id is not None:
            await self._documents.get(tenant_id, supersedes_id)  # NotFound for foreign ids
        else:
            earlier = await self._documents.latest_titled(tenant_id, title.strip(), doc_type)
            supersedes_id = earlier.id if earlier else None
        doc_set = await self._documents.get_or_create_set(tenant_id, set_name) \
            if set_name and set_name.strip() else None
        set_id = doc_set.id if doc_set else (base.set.id if base and base.set else None)
        _, path = self._files.put(tenant_id, data)
        document = await self._documents.create(tenant_id, NewDocument(
            title=title.strip(), version=version.strip(), doc_type=doc_type,
            set_id=set_id, content_hash=digest, file_path=path,
            original_filename=filename, mime_type=mime_type, size_bytes=len(data),
            uploaded_by=uploaded_by, supersedes_id=supersedes_id, family_id=family_id,
            effective_date=effective_date))
        await self._enqueue(tenant_id, document.id)
        return Submission(document, created=True)

    async def _restart_if_stuck(self, tenant_id: UUID, document: Document) -> Document:
        """Uploading the same file again is how a user retries: a failed document, or one
        left queued or processing with no job that will ever finish it (its worker was
        killed), is queued again; one whose job waits or runs on a live worker is left alone."""
        if document.status is DocStatus.READY:
            return document
        lock = str(document.id)
        if document.status is not DocStatus.FAILED:
            if await self._queue.is_active(lock):
                return document
            # Its job may be a dead worker's: back in the queue if it has retries left, else
            # given up (the document fails) and queued afresh below, as the user asks.
            await self._queue.recover_stalled()
            document = await self._documents.get(tenant_id, document.id)
        if document.status is DocStatus.FAILED or not await self._queue.is_active(lock):
            log.info("document %s (%s) submitted again: restarting its ingestion",
                     document.id, document.status.value)
            await self._enqueue(tenant_id, document.id)
        return await self._documents.get(tenant_id, document.id)

    async def _enqueue(self, tenant_id: UUID, document_id: UUID) -> None:
        await self._documents.set_status(tenant_id, document_id, DocStatus.QUEUED)
        try:
            await self._queue.defer(INGEST_JOB, queueing_lock=str(document_id),
                                    tenant_id=str(tenant_id), document_id=str(document_id))
        except Exception:
            await self._documents.set_status(tenant_id, document_id, DocStatus.FAILED,
                                             reason="could not be queued for processing")
            raise

    async def run_job(self, tenant_id: str, document_id: str) -> None:
        """Safe to run again after a crash at any point: chunks are replaced, not added, in
        the one transaction that makes the document ready."""
        tenant, doc_id = UUID(tenant_id), UUID(document_id)
        document = await self._documents.get(tenant, doc_id)
        if document.status is DocStatus.READY:
            # A retried or duplicated job: the work is already published, but the job that
            # published it may have stopped before queuing the follow-ups (each is
            # idempotent, and one already waiting is not queued twice).
            await self.queue_follow_ups(tenant, doc_id)
            return
        await self._documents.set_status(tenant, doc_id, DocStatus.PROCESSING)
        try:
            data = self._files.read(document.file_path)
            parsed = await asyncio.to_thread(self._parser.parse, data,
                                             document.original_filename)
            chunks = chunk_document(parsed, size=self._chunk_size, overlap=self._chunk_overlap)
            if not chunks:
                raise DocumentRejected("the document contains no text to index")
        except DocumentRejected as exc:
            # The file itself is the problem: retrying cannot help, tell the user why.
            await self._documents.set_status(tenant, doc_id, DocStatus.FAILED, reason=str(exc))
            return
        await self._documents.set_status(tenant, doc_id, DocStatus.PROCESSING,
                                         page_count=len(parsed.pages),
                                         char_count=parsed.char_count)
        vectors = await self._embed(tenant, doc_id, [c.text for c in chunks])
        count = await self._documents.publish_chunks(tenant, doc_id, chunks, vectors,
                                                     embedding_model=self._embedder.model_name)
        log.info("document %s ready: %d pages, %d chunks", doc_id, len(parsed.pages), count)
        await self.queue_follow_ups(tenant, doc_id)

    async def _embed(self, tenant_id: UUID, document_id: UUID, texts: list[str]) -> Vectors:
        """The chunks' vectors, embedded a batch at a time so the document's progress (and
        with it a time left) can be shown while a long rulebook is embedded."""
        total = len(texts)
        await self._documents.set_progress(tenant_id, document_id, embedded=0, total=total)
        parts = []
        for start in range(0, total, EMBED_BATCH):
            parts.append(await asyncio.to_thread(self._embedder.embed,
                                                 texts[start:start + EMBED_BATCH]))
            await self._documents.set_progress(tenant_id, document_id,
                                               embedded=min(start + EMBED_BATCH, total),
                                               total=total)
        return np.concatenate(parts) if len(parts) > 1 else parts[0]

    async def _give_up(self, tenant_id: str, document_id: str, error: BaseException) -> None:
        if isinstance(error, WorkerLost):
            reason = ("processing was interrupted on every attempt (the worker stopped "
                      "before finishing); upload the file again to retry")
        else:
            reason = f"processing failed after several attempts ({type(error).__name__})"
        await self._documents.set_status(UUID(tenant_id), UUID(document_id), DocStatus.FAILED,
                                         reason=reason)

    async def delete(self, tenant_id: UUID, document_id: UUID) -> Document:
        document = await self._documents.delete(tenant_id, document_id)
        self._files.delete(document.file_path)
        return document
