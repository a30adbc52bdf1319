"""What retrieved chunks need around them to be read and answered from: each hit's list
lead-in, sentence opening and clause from the chunks before it (``preceding``), the
opening chunks of the sections the best hits point to (``pointers``), and the chunks that
hold the rest of the lists the best of them show in part (``list_context``). One sequence
for every turn that answers from a search, and for the benchmark that measures those
answers."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from regintel.domain.documents import ChunkHit
from regintel.ports.library import ChunkIndex
from regintel.retrieval import list_context, pointers, preceding


async def around(index: ChunkIndex, tenant_id: UUID,
                 hits: Sequence[ChunkHit]) -> list[ChunkHit]:
    """``hits`` with what they need, then the chunks fetched for them (pointed-to sections
    before list completion: a section's opening rule often runs on into the next chunk)."""
    found = await preceding.attach(index, tenant_id, hits)
    found += await pointers.follow(index, tenant_id, found)
    return found + await list_context.complete(index, tenant_id, found)
