"""A tenant's view of the concept graph: the shared graph of public regulatory knowledge, read
through, plus the tenant's own graph, where everything the tenant's chats and documents
capture is written.

The shared graph is written only from public sources (the seeded regulations, SKOS imports,
documents an operator marked public): a concept a user names in a chat, or a term their
private policy defines, is the tenant's own knowledge and must never reach another tenant.
So every write of a tenant's turn goes to the tenant's graph (a separate graph on the same
server: FalkorDB keeps many graphs per server, a Bolt server a database per tenant), and every
read unites the two. A tenant can neither change nor delete a shared node: a write to a shared
node's key lands on the tenant's own copy, which only the tenant reads.

Where a key is in both graphs, the node read is the shared node with the tenant's additions:
shared scalar properties win (curated text is never overridden for anyone), list properties
are united, labels are united."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Mapping, Sequence
from typing import TypeVar
from uuid import UUID

from regintel.concepts.seed import SEED_SOURCE
from regintel.domain.concepts import CONCEPT, norm_label
from regintel.errors import DependencyUnavailable
from regintel.ports.graph import (
    GraphChanges,
    GraphEdge,
    GraphNode,
    GraphScalar,
    GraphStore,
    GraphValue,
)

log = logging.getLogger(__name__)
T = TypeVar("T")
_STAMPS = ("created_at", "updated_at")


def tenant_scope(tenant_id: UUID) -> str:
    """The name of a tenant's own graph: derived from its id, never from anything it chose."""
    return f"tenant-{tenant_id.hex}"


def merged(shared: GraphNode | None, own: GraphNode | None) -> GraphNode:
    """The shared node with the tenant's additions (see the module docstring)."""
    if shared is None or own is None:
        node = shared or own
        assert node is not None
        return node
    props: dict[str, GraphValue] = dict(own.properties)
    for name, value in shared.properties.items():
        mine = props.get(name)
        if isinstance(value, list | tuple) and isinstance(mine, list | tuple):
            props[name] = list(dict.fromkeys([*value, *mine]))
        elif value is not None and value != "":
            props[name] = value
    labels = tuple(dict.fromkeys([*shared.labels, *own.labels]))
    return GraphNode(labels=labels, key=shared.key, properties=props)


def _union(shared: Sequence[GraphNode], own: Sequence[GraphNode]) -> list[GraphNode]:
    """Shared order first, then the tenant's own nodes; one node per key."""
    mine = {n.key: n for n in own}
    out = [merged(n, mine.pop(n.key, None)) for n in shared]
    return out + list(mine.values())


def _edge_id(edge: GraphEdge) -> tuple[str, str, str]:
    return (edge.src_key, edge.rel, edge.dst_key)


class TenantGraphStore:
    """``GraphStore`` over the shared graph (read only) and one tenant's graph (read-write)."""

    def __init__(self, shared: GraphStore, own: GraphStore) -> None:
        self.shared = shared
        self.own = own
        self._own_down_logged = False

    async def _own_read(self, read: Awaitable[T], empty: T) -> T:
        """The tenant layer's answer; when the server cannot keep a graph per tenant (a Bolt
        server without multi-database support) the shared graph still answers alone."""
        try:
            return await read
        except DependencyUnavailable:
            raise
        except Exception as exc:
            if not self._own_down_logged:
                self._own_down_logged = True
                log.warning("tenant graph unreadable, the shared graph answers alone (%s: %s)",
                            type(exc).__name__, exc)
            return empty

    # -- reads: both layers ----------------------------------------------------------------
    async def ping(self) -> None:
        await self.shared.ping()

    async def get_nodes_by_keys(self, keys: Sequence[str]) -> list[GraphNode]:
        shared = await self.shared.get_nodes_by_keys(keys)
        own = await self._own_read(self.own.get_nodes_by_keys(keys), [])
        return _union(shared, own)

    async def get_nodes(self, label: str, keys: Sequence[str]) -> list[GraphNode]:
        shared = await self.shared.get_nodes(label, keys)
        # Every write here gives the tenant's copy of a node the node's label.
        return _union(shared, await self._own_read(self.own.get_nodes(label, keys), []))

    async def _copies(self, label: str, shared: Sequence[GraphNode],
                      own: Sequence[GraphNode]) -> list[GraphNode]:
        """The tenant's copies of shared nodes that a filtered read of its graph missed (a
        copy holds only what the tenant added, so a filter on other properties passes it
        by): one read of the tenant's nodes of the label (its graph is small), never the
        shared result's keys as a parameter."""
        wanted = {n.key for n in shared} - {n.key for n in own}
        if not wanted:
            return []
        mine = await self._own_read(self.own.find_nodes(label, {}, limit=100_000), [])
        return [n for n in mine if n.key in wanted]

    async def find_nodes(self, label: str, equals: Mapping[str, GraphScalar], *,
                         limit: int = 100) -> list[GraphNode]:
        shared = await self.shared.find_nodes(label, equals, limit=limit)
        own = await self._own_read(self.own.find_nodes(label, equals, limit=limit), [])
        found = _union(shared, own + await self._copies(label, shared, own))
        return sorted(found, key=lambda n: n.key)[:limit]

    async def find_nodes_with_any(self, label: str, prop: str, values: Sequence[str], *,
                                  limit: int = 100) -> list[GraphNode]:
        shared = await self.shared.find_nodes_with_any(label, prop, values, limit=limit)
        own = await self._own_read(
            self.own.find_nodes_with_any(label, prop, values, limit=limit), [])
        # A tenant's alias may match where the shared node's labels do not: read it whole.
        only_own = [n.key for n in own if n.key not in {s.key for s in shared}]
        shared += await self.shared.get_nodes(label, only_own) if only_own else []
        found = _union(shared, own + await self._copies(label, shared, own))
        return sorted(found, key=lambda n: n.key)[:limit]

    async def neighbours_of(self, keys: Sequence[str], *,
                            limit: int = 1000) -> list[tuple[GraphEdge, GraphNode, str]]:
        rows = await self.shared.neighbours_of(keys, limit=limit)
        rows += await self._own_read(self.own.neighbours_of(keys, limit=limit), [])
        seen: set[tuple[str, str, str, str]] = set()
        unique = []
        for edge, other, origin in rows:
            ident = (*_edge_id(edge), origin)
            if ident not in seen:
                seen.add(ident)
                unique.append((edge, other, origin))
        ends = {n.key: n for n in await self.get_nodes_by_keys(
            list(dict.fromkeys(other.key for _, other, _ in unique)))}
        return [(e, ends.get(o.key, o), origin) for e, o, origin in unique][:limit]

    async def neighbours(self, label: str, key: str) -> list[tuple[GraphEdge, GraphNode]]:
        return [(e, n) for e, n, _ in await self.neighbours_of([key])]

    async def edges_among(self, keys: Sequence[str], *, limit: int = 5000) -> list[GraphEdge]:
        shared = await self.shared.edges_among(keys, limit=limit)
        own = await self._own_read(self.own.edges_among(keys, limit=limit), [])
        return list({_edge_id(e): e for e in [*shared, *own]}.values())[:limit]

    async def count_nodes(self, label: str) -> int:
        return len(await self.find_nodes(label, {}, limit=100_000))

    async def changes_since(self, since_ms: int, *, limit: int = 1000) -> GraphChanges:
        shared = await self.shared.changes_since(since_ms, limit=limit)
        own = await self._own_read(self.own.changes_since(since_ms, limit=limit),
                                   GraphChanges([], [], []))
        # A node changed in one layer is reported whole, as the tenant reads it.
        keys = list(dict.fromkeys(n.key for n in [*shared.nodes, *own.nodes]))
        whole = {n.key: n for n in await self.get_nodes_by_keys(keys)}
        nodes = [whole.get(n.key, n) for n in _union(shared.nodes, own.nodes)]
        edges = {_edge_id(e): e for e in [*shared.edges, *own.edges]}
        return GraphChanges(nodes=nodes, edges=list(edges.values()),
                            tombstones=[*shared.tombstones, *own.tombstones],
                            purged_before=max(shared.purged_before, own.purged_before))

    async def dump(self) -> tuple[list[GraphNode], list[GraphEdge]]:
        shared_nodes, shared_edges = await self.shared.dump()
        own_nodes, own_edges = await self._own_read(self.own.dump(), ([], []))
        edges = {_edge_id(e): e for e in [*shared_edges, *own_edges]}
        return _union(shared_nodes, own_nodes), list(edges.values())

    # -- writes: the tenant's graph only ---------------------------------------------------
    async def merge_node(self, label: str, key: str, properties: Mapping[str, GraphValue], *,
                         extra_labels: Sequence[str] = (),
                         create_only: bool = False) -> GraphNode:
        if create_only:
            existing = await self.shared.get_nodes(label, [key])
            if existing:  # the shared node stands; the tenant's copy is never created over it
                return merged(existing[0], None)
        return await self.own.merge_node(label, key, properties, extra_labels=extra_labels,
                                         create_only=create_only)

    async def append_unique(self, label: str, key: str, prop: str,
                            values: Sequence[str]) -> GraphNode | None:
        found = await self.own.append_unique(label, key, prop, values)
        if found is None and await self.shared.get_nodes(label, [key]):
            # A tenant's additions to a shared node live on its own copy of the node.
            await self.own.merge_node(label, key, {})
            found = await self.own.append_unique(label, key, prop, values)
        return found

    async def merge_edge(self, src_label: str, src_key: str, rel: str, dst_label: str,
                         dst_key: str, properties: Mapping[str, GraphValue]) -> GraphEdge:
        for label, key in ((src_label, src_key), (dst_label, dst_key)):
            if not await self.own.get_nodes(label, [key]):
                # An edge to a shared node needs the node in the tenant's graph: a copy of
                # its public properties (reads merge it back into the shared node).
                public = await self.shared.get_nodes(label, [key])
                if public:
                    node = public[0]
                    props = {k: v for k, v in node.properties.items() if k not in _STAMPS}
                    extra = [x for x in node.labels if x != label]
                    await self.own.merge_node(label, key, props, extra_labels=extra)
        return await self.own.merge_edge(src_label, src_key, rel, dst_label, dst_key,
                                         properties)

    async def delete_node(self, label: str, key: str) -> bool:
        return await self.own.delete_node(label, key)

    async def delete_edge(self, src_label: str, src_key: str, rel: str, dst_label: str,
                          dst_key: str) -> bool:
        return await self.own.delete_edge(src_label, src_key, rel, dst_label, dst_key)

    async def purge_tombstones(self, before_ms: int) -> int:
        return await self.own.purge_tombstones(before_ms)

    async def ensure_schema(self) -> None:
        await self.shared.ensure_schema()
        await self._own_read(self.own.ensure_schema(), None)

    def scoped(self, scope: str) -> GraphStore:
        raise NotImplementedError("a tenant's view is not scoped further")

    async def close(self) -> None:
        """The two stores belong to the container, which closes them."""


async def clear_private_from_shared(shared: GraphStore) -> int:
    """Move what tenants' chats wrote out of the shared graph (earlier versions captured into
    it). Captured concepts cannot be traced back to their tenant, so they are deleted (their
    tombstones tell live views) and are captured again, into the tenant's own graph, the
    next time a tenant names them; aliases chats appended to seeded concepts are reset to
    the seed's. Idempotent: on a clean graph it is two reads."""
    gone = 0
    while nodes := await shared.find_nodes(CONCEPT, {"source": "capture"}, limit=500):
        for node in nodes:
            gone += await shared.delete_node(CONCEPT, node.key)
    for node in await shared.find_nodes(CONCEPT, {"source": SEED_SOURCE}, limit=100_000):
        pref = str(node.properties.get("prefLabel") or "")
        labels_norm = node.properties.get("labelsNorm")
        if node.properties.get("altLabels") or not isinstance(labels_norm, list | tuple) or \
                list(labels_norm) != [norm_label(pref)]:
            await shared.merge_node(CONCEPT, node.key,
                                    {"altLabels": [], "labelsNorm": [norm_label(pref)]})
            gone += 1
    if gone:
        log.info("shared concept graph: %d tenant-derived node(s) or alias list(s) removed",
                 gone)
    return gone
