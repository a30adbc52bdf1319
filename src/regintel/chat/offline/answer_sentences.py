"""A document's sentences embedded ahead of its first answers. An offline answer ranks the
sentences of its evidence by their vectors, and embedding them was nearly all of its
composition (about 0.45 s for six chunks on 2 cores). The vectors depend on the document
alone - each sentence as the answer reads it, with the lead-in and opening the chunks before
give it (retrieval.preceding) - so once a document is ready a follow-up job embeds them into
the unit-vector store (chat.offline.unit_vectors) under its tenant, where the answers find
them (ranking.Kept). A job that fails or has not run yet costs only time: an answer embeds
what it does not find, and keeps it for the next."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from regintel.chat.offline.audit_units import AuditPreparation
from regintel.chat.offline.ranking import sentences_of
from regintel.domain.documents import ChunkHit, Document, StoredChunk
from regintel.retrieval import preceding

PREPARE_ANSWERS_JOB = "answers.prepare_sentences"


class AnswerPreparation(AuditPreparation):
    """The follow-up job's handler (PREPARE_ANSWERS_JOB): the audit preparation's job over
    the sentences answers read."""

    purpose = "answers"

    async def texts(self, tenant_id: UUID, document: Document,
                    chunks: Sequence[StoredChunk]) -> list[str]:
        hits = await preceding.attach(self._index, tenant_id,
                                      [ChunkHit.of(c, document, 1.0) for c in chunks])
        # Chunk by chunk: neighbours overlap, and an answer may read a sentence of the overlap
        # from either of them (sentences_of keeps only the first of a batch).
        return [s.in_context for hit in hits for s in sentences_of([hit])]
