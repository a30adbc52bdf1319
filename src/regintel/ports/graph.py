"""The graph store port: public regulatory knowledge only (concepts, sections, rules, sources).

Nodes are addressed by ``(label, key)``, where ``key`` is a stable canonical key; adapters stamp
``created_at``/``updated_at`` (epoch milliseconds) on every node and edge they write.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

GraphScalar = str | int | float | bool
GraphValue = GraphScalar | Sequence[GraphScalar] | None


@dataclass(frozen=True)
class GraphNode:
    labels: tuple[str, ...]
    key: str
    properties: Mapping[str, GraphValue] = field(default_factory=dict)


@dataclass(frozen=True)
class GraphEdge:
    rel: str
    src_key: str
    dst_key: str
    properties: Mapping[str, GraphValue] = field(default_factory=dict)



def now_ms() -> int:
    """The graph's clock: epoch milliseconds, as ``updated_at`` and ``deleted_at`` stamp."""
    return int(time.time() * 1000)


@dataclass(frozen=True)
class Tombstone:
    """What a deletion leaves behind so change streams can report it: ``kind`` is ``node``
    (``ref`` is the node key) or ``edge`` (``ref`` is ``src-[REL]->dst``)."""

    kind: str
    ref: str
    deleted_at: int
    labels: tuple[str, ...] = ()
    rel: str | None = None
    src_key: str | None = None
    dst_key: str | None = None


@dataclass(frozen=True)
class GraphChanges:
    """Everything written or deleted at or after a timestamp."""

    nodes: list[GraphNode]
    edges: list[GraphEdge]
    tombstones: list[Tombstone]
    # Tombstones older than this were purged: a reader from before it cannot learn what was
    # removed, and must reload the graph (0: nothing was ever purged).
    purged_before: int = 0


class GraphStore(Protocol):
    async def ping(self) -> None:
        """Raise ``DependencyUnavailable`` when the store cannot answer."""

    async def merge_node(self, label: str, key: str, properties: Mapping[str, GraphValue], *,
                         extra_labels: Sequence[str] = (),
                         create_only: bool = False) -> GraphNode:
        """Create or update the node; properties are merged, timestamps stamped.
        ``extra_labels`` are added to it (a concept is ``:Concept:AmlConcept``);
        ``create_only`` writes the properties only when the node is new (atomically)."""

    async def append_unique(self, label: str, key: str, prop: str,
                            values: Sequence[str]) -> GraphNode | None:
        """Append the values not yet in list property ``prop``, in one atomic statement (so
        concurrent writers never lose each other's items); None when the node is absent."""

    async def get_nodes_by_keys(self, keys: Sequence[str]) -> list[GraphNode]:
        """Nodes of any label whose key is in ``keys``."""

    async def find_nodes(self, label: str, equals: Mapping[str, GraphScalar], *,
                         limit: int = 100) -> list[GraphNode]:
        """Nodes of ``label`` whose properties equal every value in ``equals``."""

    async def find_nodes_with_any(self, label: str, prop: str, values: Sequence[str], *,
                                  limit: int = 100) -> list[GraphNode]:
        """Nodes of ``label`` whose list property ``prop`` shares an item with ``values``."""

    async def neighbours_of(self, keys: Sequence[str], *,
                            limit: int = 1000) -> list[tuple[GraphEdge, GraphNode, str]]:
        """Edges touching any of the nodes, each with the node at its other end and the key of
        the node it was reached from: one hop of a breadth-first search."""

    async def edges_among(self, keys: Sequence[str], *, limit: int = 5000) -> list[GraphEdge]:
        """The edges whose two ends are both among ``keys``, without the nodes themselves
        (an overview's lines: neighbours_of would bring every neighbour's properties)."""

    async def delete_node(self, label: str, key: str) -> bool:
        """Delete the node and its edges, leaving a tombstone; False when it did not exist."""

    async def delete_edge(self, src_label: str, src_key: str, rel: str, dst_label: str,
                          dst_key: str) -> bool:
        """Delete one edge, leaving a tombstone; False when it did not exist."""

    async def changes_since(self, since_ms: int, *, limit: int = 1000) -> GraphChanges:
        """Nodes and edges with ``updated_at >= since_ms`` and tombstones as recent."""

    async def purge_tombstones(self, before_ms: int) -> int:
        """Forget deletions older than ``before_ms`` (how many); ``changes_since`` then says
        that readers from before it must reload (``purged_before``)."""

    async def dump(self) -> tuple[list[GraphNode], list[GraphEdge]]:
        """Every live node and edge (export)."""

    async def ensure_schema(self) -> None:
        """Key indexes (and uniqueness where the server has it); safe to call again."""

    async def get_nodes(self, label: str, keys: Sequence[str]) -> list[GraphNode]:
        """Nodes of ``label`` whose key is in ``keys`` (missing keys are skipped)."""

    async def merge_edge(self, src_label: str, src_key: str, rel: str, dst_label: str,
                         dst_key: str, properties: Mapping[str, GraphValue]) -> GraphEdge:
        """Create or update one edge between two existing nodes."""

    async def neighbours(self, label: str, key: str) -> list[tuple[GraphEdge, GraphNode]]:
        """Edges touching the node (either direction) with the node at their other end."""

    async def count_nodes(self, label: str) -> int: ...

    def scoped(self, scope: str) -> GraphStore:
        """A separate graph on the same server, named by ``scope`` (a tenant's own graph):
        nothing written through one is read through the other."""

    async def close(self) -> None: ...
