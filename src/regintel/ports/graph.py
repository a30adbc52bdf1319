"""The graph store port: public regulatory knowledge only (concepts, sections, rules, sources).

Nodes are addressed by ``(label, key)``, where ``key`` is a stable canonical key; adapters stamp
``created_at``/``updated_at`` (epoch milliseconds) on every node and edge they write.
"""

from __future__ import annotations

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


class GraphStore(Protocol):
    async def ping(self) -> None:
        """Raise ``DependencyUnavailable`` when the store cannot answer."""

    async def merge_node(self, label: str, key: str,
                         properties: Mapping[str, GraphValue]) -> GraphNode:
        """Create or update the node; properties are merged, timestamps stamped."""

    async def get_nodes(self, label: str, keys: Sequence[str]) -> list[GraphNode]:
        """Nodes of ``label`` whose key is in ``keys`` (missing keys are skipped)."""

    async def merge_edge(self, src_label: str, src_key: str, rel: str, dst_label: str,
                         dst_key: str, properties: Mapping[str, GraphValue]) -> GraphEdge:
        """Create or update one edge between two existing nodes."""

    async def neighbours(self, label: str, key: str) -> list[tuple[GraphEdge, GraphNode]]:
        """Edges touching the node (either direction) with the node at their other end."""

    async def count_nodes(self, label: str) -> int: ...

    async def close(self) -> None: ...
