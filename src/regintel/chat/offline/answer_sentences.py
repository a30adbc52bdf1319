"""A document's sentences embedded ahead of its first answers. An offline answer ranks the
sentences of its evidence by their vectors, and embedding them was nearly all of its
composition (about 0.45 s for six chunks on 2 cores). The vectors depend on the document
alone - each sentence as the answer reads it, with the lead-in and opening the chunks before
give it (retrieval.preceding) - so once a document is ready a follow-up job embeds them into
the unit-vector store (retrieval.unit_vectors) under its tenant, where the answers find
them (ranking.Kept). A job that fails or has not run yet costs only time: an answer embeds
what it does not find, and keeps it for the next."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from uuid import UUID

from regintel.chat.offline.ranking import sentences_of
from regintel.domain.documents import ChunkHit, DocStatus, Document, StoredChunk
from regintel.errors import NotFound
from regintel.ports.embedder import Embedder
from regintel.ports.library import ChunkIndex, DocumentStore
from regintel.retrieval import preceding
from regintel.retrieval.unit_vectors import UnitVectors

log = logging.getLogger(__name__)

PREPARE_ANSWERS_JOB = "answers.prepare_sentences"
BATCH = 32  # texts embedded at a time


class AnswerPreparation:
    """The follow-up job's handler (PREPARE_ANSWERS_JOB)."""

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
        log.info("document %s prepared for answers: %d texts", doc_id, len(texts))

    async def texts(self, tenant_id: UUID, document: Document,
                    chunks: Sequence[StoredChunk]) -> list[str]:
        hits = await preceding.attach(self._index, tenant_id,
                                      [ChunkHit.of(c, document, 1.0) for c in chunks])
        # Chunk by chunk: neighbours overlap, and an answer may read a sentence of the overlap
        # from either of them (sentences_of keeps only the first of a batch).
        return [s.in_context for hit in hits for s in sentences_of([hit])]
