"""The section a retrieved chunk points to. A rulebook's overview and guidance say where a
subject is dealt with ("Section 4.5 sets out the requirements regarding record-keeping"),
in the words a question uses, so search ranks the pointer above the rules it points to
("4.5.1 A Relevant Person must, where relevant, maintain the following records: … for at
least six years …"), which an answer needs. So do the rules and guidance that name what
they speak of by the rule that requires it ("The records required to be kept under Rule
4.5.1 may be kept in electronic format"): asked how long records must be kept, search
finds that sentence and 4.5.5's "the records referred to in Rule 4.5.1", not 4.5.1, whose
period closes a seven-item list. The first chunks of the section or rule a best hit points
or refers to in its own document are fetched here as evidence too, scored as the hit is (so
they neither raise the turn's confidence nor rank above it), and the answer reads them as
it reads any hit. A pointer sentence itself says nothing an answer can use
(``chat.offline.ranking.pointers``); a reference is read as what it says."""

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
THING_WORDS = 5  # before a reference, that name the thing referred to ("the records")
_WORD = re.compile(r"[a-z][a-z-]+")
_SENTENCE_END = re.compile(r"[.;:!?]\s")
# Words that say nothing of the thing: function words, and the rulebooks' name for whoever
# the rules bind ("a Relevant Person"), which nearly every question and sentence holds.
_COMMON = frozenset((
    "the", "a", "an", "any", "all", "of", "to", "for", "in", "on", "by", "and", "or", "be",
    "is", "are", "was", "were", "must", "shall", "should", "may", "its", "their", "this",
    "that", "these", "those", "which", "what", "how", "when", "where", "who", "do", "does",
    "relevant", "person", "persons", "firm", "rule", "rules", "under", "such", "with"))
# "Section 4.5 sets out …", "Rule 8.4.1 specifies …", "Part 3.2 deals with …". A chapter
# ("Chapter 4 outlines …") is too wide to read, and a bare citation ("in accordance with
# Rule 8.3.1") does not say that the rule is about the subject. A rule of another rulebook
# ("GEN Rule 8.11 sets out …") is named with that rulebook's short name: not followed.
POINTER = re.compile(
    r"(?:\b(?P<other>[A-Z]{2,})\s+)?\b(?:Section|Rule|Part)\s+\u200e*"
    r"(?P<section>\d+(?:\.\d+){1,2}[A-Z]?)\s+(?:sets out|set out|contains|specifies|"
    r"deals with|describes|explains|lists|prescribes|provides for)\b")


# "the records referred to in Rule 4.5.1", "the records required to be kept under Rule
# 4.5.1", "the information specified in Section 9.2": the thing named is what the rule is
# about. A rule cited for what to do ("in accordance with Rule 8.3.1", "a report made under
# Rule 14.3.1") is not, nor is a rule of another rulebook ("referred to in GEN Rule 5.5.2").
REFERENCE = re.compile(
    r"\b(?:referred to|required|specified|mentioned|set out|"
    r"outlined|defined|prescribed|described)(?:\s+to\s+be\s+\w+)?\s+(?:in|under|by)\s+"
    r"(?:Section|Rule)\s+\u200e*(?P<section>\d+(?:\.\d+){1,2}[A-Z]?)\b")


def _named(pattern: re.Pattern[str], text: str) -> list[str]:
    return list(dict.fromkeys(m["section"] for m in pattern.finditer(text)
                              if not m.groupdict().get("other")))


def points_to(text: str) -> list[str]:
    """The sections or rules of its own document ``text`` says a subject is dealt with in,
    in order."""
    return _named(POINTER, text)


def refers_to(text: str, question: str) -> list[str]:
    """The rules of its own document ``text`` names a thing by ("the records required to be
    kept under Rule 4.5.1"), in order, when the thing is one ``question`` speaks of: a rule
    named for another thing ("the risk assessment required under Rule 6.1.1", asked about
    records) is a different subject."""
    asked = _words(question)
    return list(dict.fromkeys(
        m["section"] for m in REFERENCE.finditer(text)
        if _words(" ".join(_SENTENCE_END.split(text[:m.start()])[-1].split()[-THING_WORDS:]))
        & asked))


def _words(text: str) -> set[str]:
    """Content words, a plural as its singular ("records" is "record"), a compound with its
    parts ("record-keeping" holds "record")."""
    words = _WORD.findall(text.lower())
    return {w.removesuffix("s") for w in words + [p for w in words for p in w.split("-")]
            if w not in _COMMON and len(w) > 1}


def under(clause: str | None, section: str) -> bool:
    """Whether a chunk labelled ``clause`` lies in ``section`` ("4.5.1.Guidance" in "4.5",
    not "4.50")."""
    return bool(clause) and (clause == section or
                             (clause or "").startswith((f"{section}.", f"{section}(")))


async def follow(index: ChunkIndex, tenant_id: UUID, hits: Sequence[ChunkHit],
                 question: str) -> list[ChunkHit]:
    """The opening chunks of each section the best hits point to, or refer to for a thing
    ``question`` speaks of, in their own documents, not among ``hits`` and not already
    reached by one of them. A failed lookup adds nothing: the answer still comes, from the
    hits."""
    best = sorted(retrieved(hits), key=lambda h: -h.score)[:EVIDENCE_CHUNKS]
    wanted = [(hit, section) for hit in best
              for section in points_to(hit.text) + refers_to(hit.text, question)
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
