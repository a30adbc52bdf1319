"""What a retrieved chunk needs from the chunks before it to be read. Chunks are cut at
about 1,000 characters, so a chunk can start:

* inside a list - at "(e) any relevant communications with the FIU;" - with the rule that
  says what the items are ("4.5.1 A Relevant Person must, where relevant, maintain the
  following records:") in the chunk before: the list's *lead-in*;
* inside a sentence - at "Person should be aware that …" when no sentence or line started
  near the cut - with "A Relevant" in the chunk before: the sentence's *opening*;
* before its first clause marker, when ingestion named it after that marker (the one near
  its top): the clause its first words belong to is the last marker before it, or the
  clause the chunks before run on in when they hold no marker.

All three are read from the chunks just before. The lead-in and the opening are shown with
the chunk's text, the clause names its citation. A quote stays inside one chunk: a sentence
the chunk starts inside is quoted whole from the chunk before when that one holds it all
(``ChunkHit.opened_in``), else from where the chunk starts."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from uuid import UUID

from regintel.domain.documents import ChunkHit, StoredChunk
from regintel.ingestion.clauses import find_clauses
from regintel.ports.library import ChunkIndex

log = logging.getLogger(__name__)

DEPTH = 2  # chunks looked back: a list longer than two chunks is rare in a rulebook
MAX_LEAD_IN_CHARS = 400
MAX_OPENING_CHARS = 200
_PROBE_CHARS = 40  # of the chunk's start, looked up in the chunk before (they overlap)
_SENTENCE_END = re.compile(r"(?:[.!?:;][\"”’)]?\s+|\n\s*)")
# A chunk that starts inside a list: an item marker ("(e)", "(ii)", "-") or the words that
# close a list ("for at least six years …").
_OPENS_INSIDE = re.compile(r"^\s*(?:\(?[a-z0-9ivx]{1,4}\)\s|[-•]\s|[a-z])")


def lead_in(clause: str, before: str) -> str | None:
    """The line of ``before`` that opens ``clause`` ("4.5.1 …" or "8.3.5.(2) …"), when it
    ends in ":" and no later clause begins after it (the chunk is then inside its list).
    Clauses are read as ingestion names them, so ``clause`` is a chunk's own label."""
    marks = find_clauses(before)
    if not marks or marks[-1][1] != clause:
        return None
    offset, label = marks[-1]
    line = before[offset:].split("\n", 1)[0]
    text = " ".join(line.removeprefix(label).lstrip(". \t").split())
    return text if text.endswith(":") and len(text) <= MAX_LEAD_IN_CHARS else None


def start_in(previous: str, text: str) -> int:
    """Where ``text`` starts in ``previous`` (the chunks before, which overlap it), or -1."""
    probe = text.lstrip()[:_PROBE_CHARS]
    return previous.rfind(probe) if probe else -1


def clause_before(previous: str, text: str) -> str | None:
    """The last clause marker of ``previous`` before where ``text`` starts."""
    at = start_in(previous, text)
    marks = find_clauses(previous if at < 0 else previous[:at])
    return marks[-1][1] if marks else None


def running_clause(before: Sequence[StoredChunk]) -> str | None:
    """The clause the chunks ``before`` (consecutive, in order) all run on in, when none of
    them starts one: ingestion files a chunk without a marker under the clause in effect
    where it starts, and with no marker since, that clause still holds where the chunk after
    them starts (an article longer than the chunks looked back)."""
    if before and not any(find_clauses(c.text) for c in before):
        return before[0].clause
    return None


def opening(previous: str, text: str) -> str | None:
    """The words of the sentence that ``text`` starts in the middle of, from ``previous``;
    None when ``text`` starts a sentence or a line."""
    start = opening_start(previous, text)
    if start is None:
        return None
    words = " ".join(previous[start:start_in(previous, text)].split())
    return words if 0 < len(words) <= MAX_OPENING_CHARS else None


def opening_start(previous: str, text: str) -> int | None:
    """Where in ``previous`` the sentence starts that ``text`` starts in the middle of; None
    when ``text`` starts a sentence or a line (or is not found in ``previous``)."""
    at = start_in(previous, text)
    if at <= 0:
        return None
    head = previous[:at]
    ends = list(_SENTENCE_END.finditer(head))
    start = ends[-1].end() if ends else 0
    return None if start == len(head) else start


async def attach(index: ChunkIndex, tenant_id: UUID, hits: Sequence[ChunkHit]) -> list[ChunkHit]:
    """``hits``, each with the lead-in of the numbered clause's list it opens inside, the
    opening of the sentence it is cut into and the clause it runs on from, when the chunks
    before hold them. A failed lookup leaves them as they are: the answer still comes, as
    the chunks read alone."""
    later = [h for h in hits if h.ordinal > 0]
    if not later:
        return list(hits)
    try:
        earlier = await index.preceding(tenant_id, [h.chunk_id for h in later], DEPTH)
    except Exception:  # display context only: it never fails the turn
        log.warning("lookup of the chunks before failed; chunks are shown as they are",
                    exc_info=True)
        return list(hits)
    found: dict[UUID, dict[str, object]] = {}
    for hit in later:
        before = earlier.get(hit.chunk_id, [])
        # Neighbours overlap; a line read twice does not change which clause opened last.
        joined = "\n".join(c.text for c in before)
        update: dict[str, object] = {}
        if hit.clause and _OPENS_INSIDE.match(hit.text):
            said = lead_in(hit.clause, joined)
            if said:
                update["lead_in"] = said
        label = clause_before(joined, hit.text) or running_clause(before)
        if label:
            update["clause_before"] = label
        if before and before[-1].ordinal == hit.ordinal - 1:
            words = opening(before[-1].text, hit.text)
            if words:
                update["opening"] = words
                update["opened_in"] = ChunkHit.alongside(before[-1], hit, score=hit.score)
        if update:
            found[hit.chunk_id] = update
    return [h.model_copy(update=found[h.chunk_id]) if h.chunk_id in found else h for h in hits]

