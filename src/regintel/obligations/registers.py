"""Registers on demand: a document's obligation register read from the store, built first
when it never was or was built by an older extractor. New documents get theirs from the
ingestion follow-up job (REGISTER_JOB); documents ingested before the register existed get
theirs lazily, on the first listing or audit that needs it — no backfill pass to run."""

from __future__ import annotations

import asyncio
import logging
from uuid import UUID

from regintel.domain.coverage import ObligationRow
from regintel.domain.documents import DocStatus
from regintel.errors import InvalidRequest
from regintel.obligations.register import EXTRACTOR_VERSION, build_register
from regintel.ports.library import ChunkIndex, DocumentStore
from regintel.ports.obligations import ObligationStore

log = logging.getLogger(__name__)

REGISTER_JOB = "obligations.register"


class Registers:
    def __init__(self, *, documents: DocumentStore, index: ChunkIndex,
                 store: ObligationStore) -> None:
        self._documents = documents
        self._index = index
        self._store = store

    async def build(self, tenant_id: UUID, document_id: UUID) -> list[ObligationRow]:
        """Extracts the document's register from its stored chunks and stores it."""
        document = await self._documents.get(tenant_id, document_id)
        if document.status is not DocStatus.READY:
            raise InvalidRequest(f"\"{document.title}\" is not ready yet ({document.status})",
                                 hint="wait until its ingestion has finished")
        chunks = await self._index.document_chunks(tenant_id, document_id)
        rows = await asyncio.to_thread(build_register, document, chunks)
        await self._store.replace(tenant_id, document_id, EXTRACTOR_VERSION, rows)
        log.info("obligation register of %s: %d obligations", document_id, len(rows))
        return rows

    async def get(self, tenant_id: UUID, document_id: UUID) -> list[ObligationRow]:
        """The register, built now if it is missing or stale (NotFound for foreign ids)."""
        await self._documents.get(tenant_id, document_id)  # NotFound before anything else
        if await self._store.built(tenant_id, document_id) == EXTRACTOR_VERSION:
            return await self._store.list(tenant_id, document_id)
        return await self.build(tenant_id, document_id)

    async def run_job(self, tenant_id: str, document_id: str) -> None:
        """The ingestion follow-up: builds the register of a document just made ready."""
        await self.build(UUID(tenant_id), UUID(document_id))
