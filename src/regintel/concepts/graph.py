"""``GraphClient`` (every read) and ``GraphWriteService`` (every write, each one checked by the
ingress guard first) over the GraphStore port."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from regintel.concepts.guard import IngressGuard, WriteRequest
from regintel.domain.concepts import (
    CONCEPT,
    ConceptSummary,
    concept_key,
    norm_label,
)
from regintel.ports.graph import GraphEdge, GraphNode, GraphStore, GraphValue

SHORT_DESCRIPTION_CHARS = 160


class GraphClient:
    def __init__(self, store: GraphStore) -> None:
        self.store = store

    async def get_nodes_by_ids(self, ids: Sequence[str]) -> list[GraphNode]:
        """In the order asked; unknown ids are skipped."""
        found = {n.key: n for n in await self.store.get_nodes_by_keys(list(dict.fromkeys(ids)))}
        return [found[i] for i in ids if i in found]

    async def concept_by_key(self, domain: str, kind: str,
                             jurisdiction: str) -> GraphNode | None:
        found = await self.store.get_nodes(CONCEPT, [concept_key(domain, kind, jurisdiction)])
        return found[0] if found else None

    async def concepts_by_label(self, labels: Sequence[str], *, domain: str | None = None,
                                jurisdiction: str | None = None) -> list[GraphNode]:
        """Concepts any of whose labels (preferred or alternative) normalise the same."""
        wanted = sorted({norm_label(x) for x in labels if x.strip()})
        if not wanted:
            return []
        nodes = await self.store.find_nodes_with_any(CONCEPT, "labelsNorm", wanted)
        return [n for n in nodes
                if (domain is None or n.properties.get("domain") == domain)
                and (jurisdiction is None or n.properties.get("jurisdiction") == jurisdiction)]

    async def concepts(self, *, limit: int = 5000) -> list[GraphNode]:
        return await self.store.find_nodes(CONCEPT, {}, limit=limit)

    async def neighbours(self, node_id: str) -> list[tuple[GraphEdge, GraphNode]]:
        return [(e, n) for e, n, _ in await self.store.neighbours_of([node_id])]

    async def bfs(self, start: Sequence[str], *, depth: int = 2, max_nodes: int = 60,
                  max_edges: int = 80) -> tuple[list[GraphNode], list[GraphEdge]]:
        """Nodes within ``depth`` hops of ``start`` (both directions), nearest first, capped:
        a bounded snapshot, so a hub concept cannot pull the whole graph into a prompt."""
        nodes = {n.key: n for n in await self.get_nodes_by_ids(start)}
        edges: dict[tuple[str, str, str], GraphEdge] = {}
        frontier = list(nodes)
        for _ in range(max(0, depth)):
            if not frontier or len(nodes) >= max_nodes:
                break
            nxt: list[str] = []
            for edge, other, _origin in await self.store.neighbours_of(frontier,
                                                                       limit=max_edges * 4):
                if other.key not in nodes:
                    if len(nodes) >= max_nodes:
                        continue
                    nodes[other.key] = other
                    nxt.append(other.key)
                ident = (edge.src_key, edge.rel, edge.dst_key)
                if len(edges) < max_edges and edge.src_key in nodes and edge.dst_key in nodes:
                    edges.setdefault(ident, edge)
            frontier = nxt
        return list(nodes.values()), list(edges.values())

    async def summaries(self, ids: Sequence[str]) -> list[ConceptSummary]:
        """Short SKOS-like lines for the conversation-context paragraph."""
        out = []
        for node in await self.get_nodes_by_ids(ids):
            p = node.properties
            label = str(p.get("prefLabel") or p.get("title") or p.get("clause") or node.key)
            text = str(p.get("definition") or p.get("title") or "")
            out.append(ConceptSummary(id=node.key, prefLabel=label,
                                      jurisdiction=str(p.get("jurisdiction") or ""),
                                      shortDescription=_shorten(text)))
        return out


def _shorten(text: str) -> str:
    text = " ".join(text.split())
    if len(text) <= SHORT_DESCRIPTION_CHARS:
        return text
    cut = text[:SHORT_DESCRIPTION_CHARS].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "…"


class GraphWriteService:
    """The only way anything writes to the graph."""

    def __init__(self, store: GraphStore, guard: IngressGuard) -> None:
        self.store = store
        self.guard = guard

    async def upsert_node(self, label: str, key: str, properties: Mapping[str, GraphValue], *,
                          extra_labels: Sequence[str] = (),
                          create_only: bool = False) -> GraphNode:
        self.guard.check(WriteRequest("node", (label, *extra_labels), (key,), properties))
        return await self.store.merge_node(label, key, properties, extra_labels=extra_labels,
                                           create_only=create_only)

    async def append_unique(self, label: str, key: str, prop: str,
                            values: Sequence[str]) -> GraphNode | None:
        self.guard.check(WriteRequest("append", (label,), (key,), {prop: list(values)}))
        return await self.store.append_unique(label, key, prop, values)

    async def link(self, src_label: str, src_key: str, rel: str, dst_label: str, dst_key: str,
                   properties: Mapping[str, GraphValue] | None = None) -> GraphEdge:
        props = dict(properties or {})
        self.guard.check(WriteRequest("edge", (src_label, dst_label), (src_key, dst_key),
                                      props, rel=rel))
        return await self.store.merge_edge(src_label, src_key, rel, dst_label, dst_key, props)

    async def delete_node(self, label: str, key: str) -> bool:
        self.guard.check(WriteRequest("delete", (label,), (key,)))
        return await self.store.delete_node(label, key)

    async def delete_edge(self, src_label: str, src_key: str, rel: str, dst_label: str,
                          dst_key: str) -> bool:
        self.guard.check(WriteRequest("edge", (src_label, dst_label), (src_key, dst_key),
                                      rel=rel))
        return await self.store.delete_edge(src_label, src_key, rel, dst_label, dst_key)
