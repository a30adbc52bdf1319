"""``regintel bench ingest``: a directory of documents through the full pipeline (submit →
queued job → parse → chunk → embed → publish) into a fresh tenant, with the time spent in
each stage. Jobs run one at a time in this process so the stage times add up to the total."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import UUID

from sqlalchemy import text

from regintel.adapters.embeddings.wrapped import WrappedEmbedder
from regintel.adapters.files.local import LocalFileStore
from regintel.adapters.parsers import AutoParser
from regintel.adapters.postgres.unit_vector_repo import PostgresUnitVectorStore
from regintel.adapters.queue.procrastinate_queue import ProcrastinateQueue
from regintel.container import Container
from regintel.domain.documents import ChunkDraft, DocStatus, DocType, ParsedDocument
from regintel.ingestion.service import (
    FOLLOW_UP_PRIORITY,
    FOLLOW_UP_QUEUE,
    INGEST_QUEUE,
    IngestionService,
)
from regintel.obligations.auditor import MatrixAuditor
from regintel.obligations.registers import REGISTER_JOB
from regintel.ports.embedder import Embedder, Vectors
from regintel.ports.library import DocumentStore
from regintel.retrieval.unit_vectors import UnitVectors


@dataclass
class Clock:
    seconds: dict[str, float] = field(default_factory=dict)

    def add(self, stage: str, started: float) -> None:
        self.seconds[stage] = self.seconds.get(stage, 0.0) + time.perf_counter() - started


class TimedEmbedder(WrappedEmbedder):
    def __init__(self, inner: Embedder, clock: Clock) -> None:
        super().__init__(inner)
        self._clock = clock
        self.texts = 0

    @property
    def seconds(self) -> float:
        return self._clock.seconds.get("embed", 0.0)

    def embed(self, texts: Sequence[str]) -> Vectors:
        started = time.perf_counter()
        try:
            return self._inner.embed(texts)
        finally:
            self._clock.add("embed", started)
            self.texts += len(texts)


class TimedParser:
    def __init__(self, inner: AutoParser, clock: Clock) -> None:
        self._inner, self._clock = inner, clock

    def detect(self, data: bytes, filename: str) -> str:
        return self._inner.detect(data, filename)

    def parse(self, data: bytes, filename: str) -> ParsedDocument:
        started = time.perf_counter()
        try:
            return self._inner.parse(data, filename)
        finally:
            self._clock.add("parse", started)


class TimedStore:
    """Times the one write that publishes a document's chunks; delegates everything else."""

    def __init__(self, inner: DocumentStore, clock: Clock) -> None:
        self._inner, self._clock = inner, clock

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def publish_chunks(self, tenant_id: UUID, document_id: UUID,
                             chunks: Sequence[ChunkDraft], vectors: Vectors, *,
                             embedding_model: str) -> int:
        started = time.perf_counter()
        try:
            return await self._inner.publish_chunks(tenant_id, document_id, chunks, vectors,
                                                    embedding_model=embedding_model)
        finally:
            self._clock.add("store", started)


async def run(container: Container, directory: Path, *, keep: bool = False,
              follow_ups: bool = False) -> dict[str, Any]:
    """``follow_ups``: then run the documents' follow-up jobs (their obligation registers
    built, what an audit reads of them embedded: obligations.auditor), timed apart."""
    files = await asyncio.to_thread(lambda: sorted(p for p in directory.iterdir() if p.is_file()))
    clock = Clock()
    embedder = TimedEmbedder(container.embedder, clock)
    await asyncio.to_thread(container.embedder.embed, ["load the model before timing"])
    queue = ProcrastinateQueue(container.database_url)
    await queue.open()
    tenant_id = await container.documents.ensure_tenant(f"bench-ingest-{uuid.uuid4().hex[:8]}")
    store = TimedStore(container.documents, clock)
    service = IngestionService(documents=store,
                               files=LocalFileStore(container.settings.files_dir),
                               parser=TimedParser(AutoParser(), clock), embedder=embedder,
                               queue=queue, max_bytes=container.settings.upload.max_bytes,
                               follow_ups=(REGISTER_JOB,) if follow_ups else ())
    service.register_jobs()
    preparing = TimedEmbedder(container.embedder, Clock())
    if follow_ups:
        auditor = MatrixAuditor(registers=container.registers, index=container.chunk_index,
                                embedder=preparing,
                                memo=UnitVectors(store=PostgresUnitVectorStore(
                                    container.database)))

        async def prepare(tenant_id: str, document_id: str) -> None:
            await container.registers.run_job(tenant_id, document_id)
            await auditor.prepare(UUID(tenant_id), await container.documents.get(
                UUID(tenant_id), UUID(document_id)))

        queue.register(REGISTER_JOB, prepare, queue=FOLLOW_UP_QUEUE,
                       priority=FOLLOW_UP_PRIORITY, retries=1)
    follow_up_s = 0.0
    try:
        started = time.perf_counter()
        ids = []
        for path in files:
            data = await asyncio.to_thread(path.read_bytes)
            submission = await service.submit(tenant_id, data=data,
                                              filename=path.name, title=path.stem,
                                              doc_type=DocType.REGULATION)
            ids.append(submission.document.id)
        await queue.run_worker(wait=False, concurrency=1, queues=[INGEST_QUEUE])
        total_s = time.perf_counter() - started
        if follow_ups:
            started = time.perf_counter()
            await queue.run_worker(wait=False, concurrency=1, queues=[FOLLOW_UP_QUEUE])
            follow_up_s = time.perf_counter() - started
        documents = [await container.documents.get(tenant_id, i) for i in ids]
    finally:
        await queue.close()
        if not keep:
            async with container.database.system_session() as session:
                await session.execute(text("DELETE FROM tenants WHERE id = :t"), {"t": tenant_id})
    ready = [d for d in documents if d.status is DocStatus.READY]
    chunks = sum(d.chunk_count for d in ready)
    embed_s = clock.seconds.get("embed", 0.0)
    return {
        "documents": len(documents), "ready": len(ready),
        "failed": [{"title": d.title, "reason": d.status_reason} for d in documents
                   if d.status is DocStatus.FAILED],
        "chunks": chunks, "total_s": round(total_s, 2), "embedding_s": round(embed_s, 2),
        "parse_s": round(clock.seconds.get("parse", 0.0), 2),
        "store_s": round(clock.seconds.get("store", 0.0), 2),
        "other_s": round(total_s - sum(clock.seconds.values()), 2),
        "total_over_embedding": round(total_s / embed_s, 3) if embed_s else None,
        "documents_per_s": round(len(ready) / total_s, 3),
        "chunks_per_s": round(chunks / total_s, 2),
        "embedding_chunks_per_s": round(embedder.texts / embed_s, 2) if embed_s else None,
    } | ({"follow_ups_s": round(follow_up_s, 2), "follow_up_texts": preparing.texts,
          "follow_up_embedding_s": round(preparing.seconds, 2)} if follow_ups else {})
