"""A real library per test: fresh database, real parsers, real MiniLM, real queue, files on disk."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from uuid import UUID

import pytest

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.adapters.files.local import LocalFileStore
from regintel.adapters.parsers import AutoParser
from regintel.adapters.postgres.chunk_index import PostgresChunkIndex
from regintel.adapters.postgres.database import Database
from regintel.adapters.postgres.documents_repo import PostgresDocumentStore
from regintel.adapters.queue.procrastinate_queue import ProcrastinateQueue
from regintel.domain.documents import DocType, Document
from regintel.ingestion.service import IngestionService
from regintel.ports.embedder import Embedder
from regintel.retrieval.hybrid import HybridRetriever


@dataclass
class Library:
    database: Database
    documents: PostgresDocumentStore
    files: LocalFileStore
    index: PostgresChunkIndex
    queue: ProcrastinateQueue
    ingestion: IngestionService
    retriever: HybridRetriever
    files_root: Path
    embedder: Embedder

    async def add(self, tenant_id: UUID, path: Path, *, title: str | None = None,
                  doc_type: DocType = DocType.REGULATION, version: str = "",
                  set_name: str | None = None, version_of: str | None = None,
                  effective_date: date | None = None) -> Document:
        """Submit a file and run its job to the end, as the worker would."""
        data = await asyncio.to_thread(path.read_bytes)
        submission = await self.ingestion.submit(
            tenant_id, data=data, filename=path.name, title=title or path.stem,
            doc_type=doc_type, version=version, set_name=set_name, version_of=version_of,
            effective_date=effective_date)
        await self.queue.run_worker(wait=False)
        return await self.documents.get(tenant_id, submission.document.id)


async def build_library(database: Database, embedder: Embedder, root: Path, *,
                        max_bytes: int = 5_000_000,
                        follow_ups: Sequence[str] = ()) -> Library:
    documents = PostgresDocumentStore(database)
    files = LocalFileStore(root)
    index = PostgresChunkIndex(database)
    queue = ProcrastinateQueue(database.url)
    ingestion = IngestionService(documents=documents, files=files, parser=AutoParser(),
                                 embedder=embedder, queue=queue, max_bytes=max_bytes,
                                 follow_ups=follow_ups)
    ingestion.register_jobs()
    await queue.open()
    return Library(database, documents, files, index, queue, ingestion,
                   HybridRetriever(index, embedder), root, embedder)


@pytest.fixture
async def library(database: Database, embedder: LocalEmbedder,
                  tmp_path: Path) -> AsyncIterator[Library]:
    lib = await build_library(database, embedder, tmp_path / "files")
    yield lib
    await lib.queue.close()


@pytest.fixture
async def tenant(library: Library) -> UUID:
    return await library.documents.ensure_tenant("acme")


@pytest.fixture
async def other_tenant(library: Library) -> UUID:
    return await library.documents.ensure_tenant("globex")
