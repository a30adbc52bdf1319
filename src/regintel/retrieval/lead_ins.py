"""The lead-in of a list that a retrieved chunk opens inside. Chunks are cut at about 1,000
characters, so a chunk can start at "(e) any relevant communications with the FIU;" with
the rule that says what the items are ("4.5.1 A Relevant Person must, where relevant,
maintain the following records:") in the chunk before; an answer that shows the item alone
says nothing. The lead-in is looked up in the chunks just before, shown with the items, and
never quoted (a quote stays inside its own chunk)."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from uuid import UUID

from regintel.domain.documents import ChunkHit
from regintel.ports.library import ChunkIndex

log = logging.getLogger(__name__)

DEPTH = 2  # chunks looked back: a list longer than two chunks is rare in a rulebook
MAX_LEAD_IN_CHARS = 400
# A chunk that starts inside a list: an item marker ("(e)", "(ii)", "-") or the words that
# close a list ("for at least six years …").
_OPENS_INSIDE = re.compile(r"^\s*(?:\(?[a-z0-9ivx]{1,4}\)\s|[-•]\s|[a-z])")
_MARK = re.compile(r"^\s*(\d+(?:\.[\dA-Z]+)*(?:\.?\(\d+\))*)\.?\s+")


def lead_in(clause: str, before: str) -> str | None:
    """The last line of ``before`` that opens ``clause`` ("4.5.1 …" or "8.3.5.(2) …") and
    ends in ":", when the clause does not close before the text that follows."""
    for line in reversed(before.splitlines()):
        mark = _MARK.match(line)
        if mark is None:
            continue
        if mark[1] != clause:
            return None  # a later clause began: the chunk is not inside this one's list
        text = " ".join(line[mark.end():].split())
        return text if text.endswith(":") and len(text) <= MAX_LEAD_IN_CHARS else None
    return None


async def attach(index: ChunkIndex, tenant_id: UUID, hits: Sequence[ChunkHit]) -> list[ChunkHit]:
    """``hits``, each that opens inside a numbered clause's list with that list's lead-in.
    A failed lookup leaves them as they are: the answer still comes, items shown alone."""
    inside = [h for h in hits if h.clause and _OPENS_INSIDE.match(h.text)]
    if not inside:
        return list(hits)
    try:
        earlier = await index.preceding(tenant_id, [h.chunk_id for h in inside], DEPTH)
    except Exception:  # display context only: it never fails the turn
        log.warning("lead-in lookup failed; list items are shown without their lead-in",
                    exc_info=True)
        return list(hits)
    found: dict[UUID, str] = {}
    for hit in inside:
        # Neighbours overlap; a line read twice does not change which clause opened last.
        before = "\n".join(c.text for c in earlier.get(hit.chunk_id, []))
        said = lead_in(hit.clause or "", before)
        if said:
            found[hit.chunk_id] = said
    return [h.model_copy(update={"lead_in": found[h.chunk_id]}) if h.chunk_id in found else h
            for h in hits]
