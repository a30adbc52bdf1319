"""Ports of the document library: tenant-scoped document records, original files, and the
search index over chunks. Every method takes the tenant; implementations filter by it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol
from uuid import UUID

from regintel.domain.documents import (
    ChunkDraft,
    DocStatus,
    Document,
    DocumentSetPublic,
    NewDocument,
    SearchScope,
    StoredChangeReport,
    StoredChunk,
    TermCoverage,
)
from regintel.ports.embedder import Vectors


class DocumentStore(Protocol):
    async def ensure_tenant(self, slug: str) -> UUID: ...

    async def get_or_create_set(self, tenant_id: UUID, name: str) -> DocumentSetPublic: ...

    async def find_set(self, tenant_id: UUID, name: str) -> DocumentSetPublic | None: ...

    async def find_by_hash(self, tenant_id: UUID, content_hash: str) -> Document | None: ...

    async def latest_titled(self, tenant_id: UUID, title: str,
                            doc_type: str) -> Document | None: ...

    async def find_titled(self, tenant_id: UUID, title: str) -> list[Document]:
        """Documents titled exactly ``title`` (any case, spacing collapsed), oldest first."""
        ...

    async def create(self, tenant_id: UUID, new: NewDocument) -> Document:
        """With ``new.family_id`` (its first version's id): a new version of that family,
        following the version before it in the chain (``supersedes_id``)."""
        ...

    async def get(self, tenant_id: UUID, document_id: UUID) -> Document:
        """Raises ``NotFound`` for unknown ids and for other tenants' ids alike."""

    # (before ``list``, which would shadow the builtin in the annotations below it)
    async def versions(self, tenant_id: UUID, document_id: UUID) -> list[Document]:
        """The versions of the document's family in chain order, earliest first (just the
        document when it has none); which one is current is marked on each
        (adapters/postgres/versions_sql.py has the rule). ``NotFound`` as ``get``."""
        ...

    async def list(self, tenant_id: UUID) -> list[Document]: ...

    async def set_status(self, tenant_id: UUID, document_id: UUID, status: DocStatus, *,
                         reason: str | None = None, page_count: int | None = None,
                         char_count: int | None = None) -> None: ...

    async def set_progress(self, tenant_id: UUID, document_id: UUID, *, embedded: int,
                           total: int) -> None:
        """Records how many of its chunks are embedded; the first call of a run (embedded 0)
        also marks when its processing started."""
        ...

    async def publish_chunks(self, tenant_id: UUID, document_id: UUID,
                             chunks: Sequence[ChunkDraft], vectors: Vectors, *,
                             embedding_model: str) -> int:
        """Replace the document's chunks and mark it ready in one transaction, so search
        never sees a half-written document."""

    async def replace_embeddings(self, tenant_id: UUID, document_id: UUID,
                                 chunk_ids: Sequence[UUID], vectors: Vectors, *,
                                 embedding_model: str) -> None:
        """Swap the vectors of existing chunks in one transaction (reindexing)."""

    async def vector_dimension(self) -> int:
        """The dimension of the stored ``chunks.embedding`` column."""

    async def delete(self, tenant_id: UUID, document_id: UUID) -> Document: ...


class FileStore(Protocol):
    def put(self, tenant_id: UUID, data: bytes) -> tuple[str, str]:
        """Store the bytes; return (content hash, relative path)."""

    def read(self, relative_path: str) -> bytes: ...

    def delete(self, relative_path: str) -> None: ...


class ChunkIndex(Protocol):
    async def dense(self, tenant_id: UUID, vector: Sequence[float], k: int,
                    scope: SearchScope) -> list[tuple[UUID, float]]:
        """Nearest chunks by cosine similarity (higher is closer)."""

    async def lexical(self, tenant_id: UUID, query: str, k: int,
                      scope: SearchScope) -> list[tuple[UUID, float]]:
        """Chunks by BM25 over the english lexemes of ``query``."""

    async def coverage(self, tenant_id: UUID, query: str,
                       chunk_ids: Sequence[UUID]) -> dict[UUID, TermCoverage]:
        """How much of the english lexemes of ``query`` each of ``chunk_ids`` holds."""

    async def fetch(self, tenant_id: UUID,
                    chunk_ids: Sequence[UUID]) -> dict[UUID, tuple[StoredChunk, Document]]: ...

    async def document_chunks(self, tenant_id: UUID, document_id: UUID) -> list[StoredChunk]: ...

    async def preceding(self, tenant_id: UUID, chunk_ids: Sequence[UUID],
                        depth: int) -> dict[UUID, list[StoredChunk]]:
        """Each chunk's ``depth`` chunks before it in its document, in document order."""

    async def following(self, tenant_id: UUID, chunk_ids: Sequence[UUID],
                        depth: int) -> dict[UUID, list[StoredChunk]]:
        """Each chunk's ``depth`` chunks after it in its document, in document order."""


class ChangeReportStore(Protocol):
    """Change reports of two versions (``changes.models.ChangeReport`` as JSON), prepared at
    ingestion of the later one; keyed by the two documents, gone with either."""

    async def get(self, tenant_id: UUID, old_id: UUID,
                  new_id: UUID) -> StoredChangeReport | None: ...

    async def put(self, tenant_id: UUID, old_id: UUID, new_id: UUID, *, report_version: int,
                  report: dict[str, Any]) -> None:
        """Stores the report, replacing one already stored for the pair."""
        ...
