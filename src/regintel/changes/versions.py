"""The change report of two versions of a library document: prepared by a follow-up job when
a new version is ingested (its report against the version before it, and against the one
after it when it was slotted in between), stored, and read from the store by the API and
``regintel changes``; made on the spot (and stored) when it is missing or was made by an
older aligner."""

from __future__ import annotations

import asyncio
import logging
from uuid import UUID

from regintel.changes.models import ChangeReport
from regintel.changes.report import REPORT_VERSION, compare_texts
from regintel.domain.documents import DocStatus, Document, titled
from regintel.errors import InvalidRequest, NotFound
from regintel.obligations.review_state import policy_text
from regintel.ports.library import ChangeReportStore, ChunkIndex, DocumentStore

log = logging.getLogger(__name__)

CHANGES_JOB = "changes.prepare"


class VersionChanges:
    def __init__(self, *, documents: DocumentStore, index: ChunkIndex,
                 store: ChangeReportStore) -> None:
        self._documents = documents
        self._index = index
        self._store = store

    async def report(self, tenant_id: UUID, old_id: UUID, new_id: UUID) -> ChangeReport:
        """What changed from ``old_id`` to ``new_id`` (both this tenant's, ready; NotFound
        alike for unknown and foreign ids): the stored report, else made now."""
        if old_id == new_id:
            raise InvalidRequest("a document compared with itself has no changes",
                                 hint="give the earlier version's id in 'from'")
        new = await self._documents.get(tenant_id, new_id)
        old = await self._documents.get(tenant_id, old_id)
        stored = await self._store.get(tenant_id, old_id, new_id)
        if stored is not None and stored.report_version == REPORT_VERSION:
            return ChangeReport.model_validate(stored.report)
        return await self._make(tenant_id, old, new)

    async def stored(self, tenant_id: UUID, old_id: UUID, new_id: UUID) -> bool:
        """Whether a report of the pair by this aligner is in the store."""
        found = await self._store.get(tenant_id, old_id, new_id)
        return found is not None and found.report_version == REPORT_VERSION

    async def prepare(self, tenant_id: UUID, document_id: UUID) -> list[tuple[UUID, UUID]]:
        """Makes and stores the reports of a version against its neighbours in the chain;
        returns the pairs made. A neighbour not ready yet is left to its own job."""
        try:
            chain = await self._documents.versions(tenant_id, document_id)
        except NotFound:
            return []  # deleted since it was ingested
        at = next((i for i, d in enumerate(chain) if d.id == document_id), None)
        if at is None or len(chain) < 2:
            return []
        pairs = [(chain[i], chain[i + 1]) for i in (at - 1, at) if 0 <= i < len(chain) - 1]
        made = []
        for old, new in pairs:
            if old.status is DocStatus.READY and new.status is DocStatus.READY:
                await self._make(tenant_id, old, new)
                made.append((old.id, new.id))
        return made

    async def run_job(self, tenant_id: str, document_id: str) -> None:
        """The ingestion follow-up (safe to run again: a report is replaced, not added)."""
        made = await self.prepare(UUID(tenant_id), UUID(document_id))
        if made:
            log.info("change reports of %s prepared: %d", document_id, len(made))

    async def _make(self, tenant_id: UUID, old: Document, new: Document) -> ChangeReport:
        old_text, new_text = await self._text(tenant_id, old), await self._text(tenant_id, new)
        report = await asyncio.to_thread(compare_texts, old_text, new_text,
                                         titled(old.title, old.version),
                                         titled(new.title, new.version))
        await self._store.put(tenant_id, old.id, new.id, report_version=REPORT_VERSION,
                              report=report.model_dump(mode="json"))
        return report

    async def _text(self, tenant_id: UUID, document: Document) -> str:
        if document.status is not DocStatus.READY:
            raise InvalidRequest(
                f"\"{document.title}\" is not ready yet ({document.status.value})",
                hint="wait until both versions are ingested")
        return policy_text(await self._index.document_chunks(tenant_id, document.id))
