"""The chunks that hold the rest of a list a retrieved chunk shows in part, or the rule a
retrieved guidance note explains. A rule's list runs over two or three chunks of about
1,000 characters; search returns the one closest to the question ("(e) any relevant
communications with the FIU; … (g) any other matter …"), and an answer that shows only its
items misleads. The chunks before it (up to the list's lead-in) and after it (to the list's
end) are fetched here, for the answer to read the list whole (``chat.offline.whole_list``);
so are the chunks before a guidance note, where its rule stands
(``chat.offline.guided_rule``). They are evidence for quotes, never ranked."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from uuid import UUID

from regintel.domain.documents import ChunkHit
from regintel.ingestion.clauses import guided_rule
from regintel.ports.library import ChunkIndex

log = logging.getLogger(__name__)

EVIDENCE_CHUNKS = 6  # the best hits an answer is composed from (chat.offline.compose)
# As far back as a lead-in is looked for (retrieval.preceding.DEPTH), and a guidance note's
# rule: the first notes follow their rule, later ones may be further from it than this.
BEFORE = 2
AFTER = 1
# A list item's marker at the start of a line: "(a)", "(ii)", "a)", "1.", "(1)".
ITEM_MARK = re.compile(r"\(?([a-z]{1,4}|[0-9]{1,2})[.)](?=\s)")


def ends_inside(text: str) -> bool:
    """Whether a chunk's text stops inside a list: its last line is an item, or a lead-in."""
    lines = [line for line in text.splitlines() if line.strip()]
    return bool(lines) and (bool(ITEM_MARK.match(lines[-1].lstrip())) or
                            lines[-1].rstrip().endswith(":"))


async def complete(index: ChunkIndex, tenant_id: UUID,
                   hits: Sequence[ChunkHit]) -> list[ChunkHit]:
    """The chunks next to the best hits that the lists they stand in go on into, not among
    ``hits`` (all the search returned, before any is withheld: a withheld chunk is not
    fetched back): before a hit that opens inside a list (``ChunkHit.lead_in``) or is
    guidance on a rule, after one that stops inside a list. They are screened for
    injections with the hits. A failed lookup adds nothing: the answer still comes, from
    the hits."""
    best = sorted(hits, key=lambda h: -h.score)[:EVIDENCE_CHUNKS]
    back = [h.chunk_id for h in best if h.lead_in or guided_rule(h.clause)]
    ahead = [h.chunk_id for h in best if ends_inside(h.text)]
    if not back and not ahead:
        return []
    try:
        before = await index.preceding(tenant_id, back, BEFORE) if back else {}
        after = await index.following(tenant_id, ahead, AFTER) if ahead else {}
    except Exception:  # context for display only: it never fails the turn
        log.warning("lookup of a list's other chunks failed; lists are shown as retrieved",
                    exc_info=True)
        return []
    by_id = {h.chunk_id: h for h in hits}
    added: dict[UUID, ChunkHit] = {}
    for found in (before, after):
        for of, chunks in found.items():
            for chunk in chunks:
                if chunk.id not in by_id and chunk.id not in added:
                    added[chunk.id] = ChunkHit.alongside(chunk, by_id[of], score=0.0,
                                                          completes=of)
    return list(added.values())


def retrieved(hits: Sequence[ChunkHit]) -> list[ChunkHit]:
    """The hits search returned, without the chunks fetched to complete their lists."""
    return [h for h in hits if h.completes is None]
