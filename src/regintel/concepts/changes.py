"""GraphChangeDetector: the graph's changes as a stream of patches (spec §6.3).

Added and updated nodes and edges come from polling ``updated_at`` (every write through the
graph store stamps it; ``created_at`` at or after the cursor makes it an ``add``). Removals
cannot be polled from what is gone, so deletions leave ``:Tombstone`` nodes (written in the
same statement as the delete, see ``adapters/graph/cypher.py``) that the detector reports as
``remove``; a removed node implies its edges are gone too. Tombstones are never exported
and never returned by reads. The cursor is inclusive (``>=``) so writes landing in the same
millisecond as the last poll are not missed; patches already sent at that millisecond are
remembered and not sent twice. Tombstones are kept for a retention period
(``purge_tombstones``); a reader whose cursor is older than the purge is told to reload
(``ResyncRequired``) rather than silently missing removals."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from regintel.domain.concepts import GraphPatch, edge_id
from regintel.errors import ResyncRequired
from regintel.ports.graph import GraphStore, now_ms


def _ms(value: object) -> int:
    try:
        return int(str(value))
    except ValueError:
        return 0


class GraphChangeDetector:
    def __init__(self, store: GraphStore, *, poll_interval_s: float = 2.0,
                 batch: int = 1000) -> None:
        self.store = store
        self.poll_interval_s = poll_interval_s
        self.batch = batch

    async def patches_since(self, since_ms: int) -> list[GraphPatch]:
        """Every change at or after ``since_ms``, oldest first - up to the time where a kind
        of change (nodes, edges, removals) filled its batch. Beyond that time the full kind
        has more to give, and a later patch of another kind would move a caller's cursor past
        what it has not read yet."""
        changes = await self.store.changes_since(since_ms, limit=self.batch)
        if since_ms < changes.purged_before:
            raise ResyncRequired(
                "changes this old are no longer kept: removals before "
                f"{changes.purged_before} were purged",
                hint="reload the graph (GET /api/graph) and follow the changes from its cursor")
        nodes: list[GraphPatch] = []
        for n in changes.nodes:
            at = _ms(n.properties.get("updated_at"))
            op = "add" if _ms(n.properties.get("created_at")) >= since_ms else "update"
            nodes.append(GraphPatch(op=op, kind="node", id=n.key, at=at, labels=list(n.labels),
                                    properties=dict(n.properties)))
        edges: list[GraphPatch] = []
        for e in changes.edges:
            at = _ms(e.properties.get("updated_at"))
            op = "add" if _ms(e.properties.get("created_at")) >= since_ms else "update"
            edges.append(GraphPatch(op=op, kind="edge", id=edge_id(e.src_key, e.rel, e.dst_key),
                                    at=at, properties=dict(e.properties), source=e.src_key,
                                    target=e.dst_key, rel=e.rel))
        removals = [GraphPatch(op="remove", kind="node" if t.kind == "node" else "edge",
                               id=t.ref, at=t.deleted_at, labels=list(t.labels),
                               source=t.src_key, target=t.dst_key, rel=t.rel)
                    for t in changes.tombstones]
        # Each write stamps its own millisecond, so a full batch never sits in one: the
        # horizon is always past ``since_ms`` and the next call makes progress.
        horizon = min((max(p.at for p in kind) for kind in (nodes, edges, removals)
                       if len(kind) >= self.batch), default=None)
        out = [p for p in nodes + edges + removals if horizon is None or p.at <= horizon]
        return sorted(out, key=lambda p: (p.at, p.kind != "node"))

    async def stream(self, since_ms: int = 0, *,
                     max_polls: int | None = None) -> AsyncIterator[GraphPatch]:
        """Patches as they happen, from ``since_ms``; ``max_polls`` bounds it (tests)."""
        cursor, sent_at_cursor = since_ms, set[tuple[str, str, int]]()
        polls = 0
        while max_polls is None or polls < max_polls:
            polls += 1
            for patch in await self.patches_since(cursor):
                ident = (patch.kind, patch.id, patch.at)
                if patch.at == cursor and ident in sent_at_cursor:
                    continue
                if patch.at > cursor:
                    cursor, sent_at_cursor = patch.at, set()
                sent_at_cursor.add(ident)
                yield patch
            if max_polls is None or polls < max_polls:
                await asyncio.sleep(self.poll_interval_s)


async def purge_deletions(graph: GraphStore, *, older_than_days: int) -> int:
    """Forget the graph's deletions older than ``older_than_days``: a change-stream reader
    from before then is told to reload rather than replay them."""
    return await graph.purge_tombstones(now_ms() - older_than_days * 86_400_000)
