"""A document's audit units embedded ahead of its first audit. Embedding the units is most of
a first audit's time (about 7 of 10 s for the demo policy against the AML and General
rulebooks on 2 cores), and it depends on the document alone: a regulation is read as a target
(each obligation in context, each item of a rule's list by its own words), a policy as the
source (each clause in context, each item of its lists). So when a document is ready, a
follow-up job embeds those texts into the unit vector store (chat.offline.unit_vectors) and
the audit finds them there. It embeds every obligation, where one audit reads those its
themes reach; its units are shorter than chunks, so it costs less than the chunks' own
embedding (the 40 ADGM rulebooks: 89 s for 10,928 texts after a 300 s ingestion,
`regintel bench ingest --follow-ups`). A job that fails or has not run yet costs only time:
the audit embeds what it does not find."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from uuid import UUID

from regintel.chat.offline import lists, matching
from regintel.chat.offline.segments import Unit, page_texts, segment
from regintel.chat.offline.unit_lists import group_lists
from regintel.chat.offline.unit_vectors import UnitVectors
from regintel.domain.documents import DocStatus, DocType, Document, StoredChunk
from regintel.errors import NotFound
from regintel.ports.embedder import Embedder
from regintel.ports.library import ChunkIndex, DocumentStore

log = logging.getLogger(__name__)

PREPARE_JOB = "audit.prepare_units"
BATCH = 32  # texts embedded at a time


def policy_units(document_id: UUID, chunks: Sequence[StoredChunk]) -> list[Unit]:
    """A policy in sentences (a clause that says two things is matched on each), its lists
    whole ("The Firm will retain the following records for five years …: (a) … (d) …")."""
    return matching.policy_clauses(
        group_lists(segment(document_id, page_texts(chunks), max_unit_chars=0)))


def source_texts(units: Sequence[Unit]) -> list[str]:
    """What an audit embeds of its source's ``policy_units``: each in context, then each
    item of its lists by its own words (lists.Enumerations.texts)."""
    return ([matching.context_of(u) for u in units] +
            [item.body for _, items, _ in lists.policy_lists(units) for item in items])


def target_texts(units: Sequence[Unit]) -> list[str]:
    """What an audit may embed of a target's units: each obligation in context, then each
    item of a rule's list by its own words."""
    obligations = [u for u in units if matching.checkable(u)]
    return ([matching.context_of(u) for u in obligations] +
            [u.body for u in obligations if lists.rule_item(u) is not None])


class AuditPreparation:
    """The follow-up job's handler (PREPARE_JOB): embeds a ready document's units by its
    type - a policy as a source, a regulation as a target."""

    def __init__(self, *, documents: DocumentStore, index: ChunkIndex, embedder: Embedder,
                 memo: UnitVectors) -> None:
        self._documents = documents
        self._index = index
        self._embedder = embedder
        self._memo = memo

    async def run_job(self, tenant_id: str, document_id: str) -> None:
        tenant, doc_id = UUID(tenant_id), UUID(document_id)
        try:
            document = await self._documents.get(tenant, doc_id)
        except NotFound:
            return  # deleted since it was ingested
        if document.status is not DocStatus.READY:
            return
        chunks = await self._index.document_chunks(tenant, doc_id)
        texts = list(dict.fromkeys(await self.texts(tenant, document, chunks)))
        # In small batches: a turn that needs a text being embedded waits for its batch
        # (unit_vectors), not for the whole document.
        for start in range(0, len(texts), BATCH):
            await self._memo.embed(self._embedder, tenant,
                                   [(doc_id, text) for text in texts[start:start + BATCH]])
        log.info("document %s prepared for %s: %d texts", doc_id, self.purpose, len(texts))

    purpose = "audit"

    async def texts(self, tenant_id: UUID, document: Document,
                    chunks: Sequence[StoredChunk]) -> list[str]:
        """What is embedded of the document: a policy as an audit's source, a regulation as
        its target."""
        if document.doc_type is DocType.POLICY:
            return source_texts(policy_units(document.id, chunks))
        return target_texts(segment(document.id, page_texts(chunks)))
