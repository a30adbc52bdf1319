"""What retrieved chunks need around them to be read and answered from: each hit's list
lead-in, sentence opening and clause from the chunks before it (``preceding``), the
opening chunks of the sections the best hits point or refer to (``pointers``), and the
chunks that hold the rest of the lists the best of them show in part (``list_context``).
One sequence for every turn that answers from a search, and for the benchmark that
measures those answers."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from regintel.domain.documents import ChunkHit
from regintel.ports.library import ChunkIndex
from regintel.retrieval import list_context, pointers, preceding


async def around(index: ChunkIndex, tenant_id: UUID, hits: Sequence[ChunkHit],
                 question: str) -> list[ChunkHit]:
    """``hits`` with what they need, then the chunks fetched for them (pointed-to sections
    before list completion: a section's opening rule often runs on into the next chunk)."""
    found = await preceding.attach(index, tenant_id, hits)
    found += await followed(index, tenant_id, found, question)
    return found + await list_context.complete(index, tenant_id, found)


async def followed(index: ChunkIndex, tenant_id: UUID, hits: Sequence[ChunkHit],
                   question: str) -> list[ChunkHit]:
    """The opening chunks of the sections ``hits`` point to, or refer to for a thing
    ``question`` speaks of (``pointers.follow``), each with what the chunks before it give
    it: a rule's list often starts a chunk of its own ("(a) a copy of all documents …"),
    its lead-in in the chunk before."""
    return await preceding.attach(index, tenant_id,
                                  await pointers.follow(index, tenant_id, hits, question))
