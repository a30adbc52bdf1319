"""The section a retrieved chunk points to. A rulebook's overview and guidance say where a
subject is dealt with ("Section 4.5 sets out the requirements regarding record-keeping"),
in the words a question uses, so search ranks the pointer above the rules it points to
("4.5.1 A Relevant Person must, where relevant, maintain the following records: … for at
least six years …"), which an answer needs. The first chunks of the section or rule a best
hit points to in its own document are fetched here as evidence too, scored as the pointer
is (so they neither raise the turn's confidence nor rank above it), and the answer reads
them as it reads any hit; the pointer sentence itself says nothing an answer can use
(``chat.offline.ranking.pointers``)."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from uuid import UUID

from regintel.domain.documents import ChunkHit, StoredChunk
from regintel.ports.library import ChunkIndex
from regintel.retrieval.list_context import EVIDENCE_CHUNKS, retrieved

log = logging.getLogger(__name__)

SECTION_CHUNKS = 2  # of the section pointed to: its opening rules, before its guidance
# "Section 4.5 sets out …", "Rule 8.4.1 specifies …", "Part 3.2 deals with …". A chapter
# ("Chapter 4 outlines …") is too wide to read, and a bare citation ("in accordance with
# Rule 8.3.1") does not say that the rule is about the subject. A rule of another rulebook
# ("GEN Rule 8.11 sets out …") is named with that rulebook's short name: not followed.
POINTER = re.compile(
    r"(?:\b(?P<other>[A-Z]{2,})\s+)?\b(?:Section|Rule|Part)\s+\u200e*"
    r"(?P<section>\d+(?:\.\d+){1,2}[A-Z]?)\s+(?:sets out|set out|contains|specifies|"
    r"deals with|describes|explains|lists|prescribes|provides for)\b")


def points_to(text: str) -> list[str]:
    """The sections or rules of its own document ``text`` says a subject is dealt with in,
    in order."""
    return list(dict.fromkeys(m["section"] for m in POINTER.finditer(text) if not m["other"]))


def under(clause: str | None, section: str) -> bool:
    """Whether a chunk labelled ``clause`` lies in ``section`` ("4.5.1.Guidance" in "4.5",
    not "4.50")."""
    return bool(clause) and (clause == section or
                             (clause or "").startswith((f"{section}.", f"{section}(")))


async def follow(index: ChunkIndex, tenant_id: UUID,
                 hits: Sequence[ChunkHit]) -> list[ChunkHit]:
    """The opening chunks of each section the best hits point to in their own documents,
    not among ``hits`` and not already reached by one of them. A failed lookup adds
    nothing: the answer still comes, from the hits."""
    best = sorted(retrieved(hits), key=lambda h: -h.score)[:EVIDENCE_CHUNKS]
    wanted = [(hit, section) for hit in best for section in points_to(hit.text)
              if not any(h.document_id == hit.document_id and under(h.clause, section)
                         for h in hits)]
    if not wanted:
        return []
    added: dict[UUID, ChunkHit] = {}
    have = {h.chunk_id for h in hits}
    documents: dict[UUID, list[StoredChunk]] = {}
    try:
        for hit, section in wanted:
            if hit.document_id not in documents:
                documents[hit.document_id] = await index.document_chunks(tenant_id,
                                                                         hit.document_id)
            chunks = documents[hit.document_id]
            inside = [c for c in chunks if under(c.clause, section) and c.id not in have]
            for chunk in inside[:SECTION_CHUNKS]:
                added.setdefault(chunk.id, ChunkHit.alongside(chunk, hit, score=hit.score))
    except Exception:  # more evidence, never a condition of the answer
        log.warning("lookup of a section a passage points to failed; answering from the "
                    "hits", exc_info=True)
        return []
    return list(added.values())
