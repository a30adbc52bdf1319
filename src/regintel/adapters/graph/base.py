"""The GraphStore methods every Cypher server shares: a template method over ``_query``.

FalkorDB and Bolt servers (Memgraph, Neo4j) run the same statements from ``cypher``; each
adapter only says how to send one statement and which index dialect it speaks."""

from __future__ import annotations

import asyncio
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

from regintel.adapters.graph import cypher
from regintel.errors import InvalidRequest
from regintel.ports.graph import (
    GraphChanges,
    GraphEdge,
    GraphNode,
    GraphScalar,
    GraphValue,
    Tombstone,
    now_ms,
)


def _props(value: Any) -> dict[str, GraphValue]:
    return {str(k): v for k, v in dict(value or {}).items()}


def node_of(row: Sequence[Any]) -> GraphNode:
    labels, key, props = row[0], row[1], row[2]
    return GraphNode(labels=tuple(labels), key=key, properties=_props(props))


def edge_of(row: Sequence[Any]) -> GraphEdge:
    return GraphEdge(rel=row[0], src_key=row[1], dst_key=row[2], properties=_props(row[3]))


_PROP_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")


def _checked(properties: Mapping[str, GraphValue]) -> dict[str, GraphValue]:
    """Property maps travel as parameters, but some clients render map keys into the query
    header (FalkorDB's CYPHER prefix): keys are plain identifiers or refused."""
    bad = [k for k in properties if not _PROP_NAME.match(k)]
    if bad:
        raise InvalidRequest(f"graph property name {bad[0]!r} is not a plain identifier")
    return dict(properties)


_SCOPE = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")


def check_scope(scope: str) -> str:
    """A scope names a graph (or a database) on the server: a plain lower-case name only."""
    if not _SCOPE.match(scope):
        raise InvalidRequest(f"graph scope {scope!r} is not a plain name")
    return scope


def _limit(value: int) -> int:
    if not 1 <= value <= 100_000:
        raise InvalidRequest("graph query limit must be between 1 and 100000")
    return value


class CypherGraphStore(ABC):
    dialect = "falkordb"
    _schema_ready = False
    _schema_lock: asyncio.Lock | None = None

    async def _run(self, query: str, params: Mapping[str, Any] | None = None, *,
                   read_only: bool = False) -> list[list[Any]]:
        """``_query``, after making sure the graph and its key indexes exist before the first
        write: FalkorDB lets concurrent first writes to a graph that does not exist yet each
        MERGE their own copy of a node, and the key index is what MERGE looks up."""
        if not read_only and not self._schema_ready:
            if self._schema_lock is None:
                self._schema_lock = asyncio.Lock()
            async with self._schema_lock:
                if not self._schema_ready:
                    await self.ensure_schema()
        return await self._query(query, params, read_only=read_only)

    @abstractmethod
    async def ping(self) -> None:
        """Raise ``DependencyUnavailable`` when the server cannot answer."""

    @abstractmethod
    async def close(self) -> None: ...

    @abstractmethod
    def scoped(self, scope: str) -> CypherGraphStore:
        """A separate graph (FalkorDB) or database (Bolt) on the same server, named by
        ``scope``: a tenant's own graph."""

    @abstractmethod
    async def _query(self, query: str, params: Mapping[str, Any] | None = None, *,
                     read_only: bool = False) -> list[list[Any]]:
        """Run one statement; raise ``DependencyUnavailable`` when the server is unreachable."""

    async def merge_node(self, label: str, key: str, properties: Mapping[str, GraphValue], *,
                         extra_labels: Sequence[str] = (),
                         create_only: bool = False) -> GraphNode:
        rows = await self._run(cypher.merge_node(label, tuple(extra_labels),
                                                   create_only=create_only),
                                 {"key": key, "props": _checked(properties), "now": now_ms()})
        return node_of(rows[0])

    async def append_unique(self, label: str, key: str, prop: str,
                            values: Sequence[str]) -> GraphNode | None:
        rows = await self._run(cypher.append_unique(label, prop),
                                 {"key": key, "values": list(values), "now": now_ms()})
        return node_of(rows[0]) if rows else None

    async def get_nodes(self, label: str, keys: Sequence[str]) -> list[GraphNode]:
        rows = await self._run(cypher.get_nodes(label), {"keys": list(keys)}, read_only=True)
        return [node_of(r) for r in rows]

    async def get_nodes_by_keys(self, keys: Sequence[str]) -> list[GraphNode]:
        if not keys:
            return []
        rows = await self._run(cypher.get_nodes_by_keys(), {"keys": list(keys)},
                                 read_only=True)
        return [node_of(r) for r in rows]

    async def find_nodes(self, label: str, equals: Mapping[str, GraphScalar], *,
                         limit: int = 100) -> list[GraphNode]:
        names = tuple(equals)
        params: dict[str, Any] = {f"v{i}": equals[n] for i, n in enumerate(names)}
        params["limit"] = _limit(limit)
        rows = await self._run(cypher.find_nodes(label, names), params, read_only=True)
        return [node_of(r) for r in rows]

    async def find_nodes_with_any(self, label: str, prop: str, values: Sequence[str], *,
                                  limit: int = 100) -> list[GraphNode]:
        rows = await self._run(cypher.find_nodes_with_any(label, prop),
                                 {"values": list(values), "limit": _limit(limit)},
                                 read_only=True)
        return [node_of(r) for r in rows]

    async def merge_edge(self, src_label: str, src_key: str, rel: str, dst_label: str,
                         dst_key: str, properties: Mapping[str, GraphValue]) -> GraphEdge:
        rows = await self._run(
            cypher.merge_edge(src_label, rel, dst_label),
            {"src": src_key, "dst": dst_key, "props": _checked(properties), "now": now_ms()},
        )
        if not rows:
            raise LookupError(f"cannot link {src_label}:{src_key} to {dst_label}:{dst_key}: "
                              "an end node does not exist")
        return edge_of(rows[0])

    async def neighbours(self, label: str, key: str) -> list[tuple[GraphEdge, GraphNode]]:
        rows = await self._run(cypher.neighbours(label), {"key": key}, read_only=True)
        return [(edge_of(r[0:4]), node_of(r[4:7])) for r in rows]

    async def neighbours_of(self, keys: Sequence[str], *,
                            limit: int = 1000) -> list[tuple[GraphEdge, GraphNode, str]]:
        if not keys:
            return []
        rows = await self._run(cypher.neighbours_of(),
                                 {"keys": list(keys), "limit": _limit(limit)}, read_only=True)
        return [(edge_of(r[0:4]), node_of(r[4:7]), r[7]) for r in rows]

    async def edges_among(self, keys: Sequence[str], *, limit: int = 5000) -> list[GraphEdge]:
        if not keys:
            return []
        rows = await self._run(cypher.edges_among(),
                                 {"keys": list(keys), "limit": _limit(limit)}, read_only=True)
        return [edge_of(r) for r in rows]

    async def count_nodes(self, label: str) -> int:
        rows = await self._run(cypher.count_nodes(label), read_only=True)
        return int(rows[0][0]) if rows else 0

    async def delete_node(self, label: str, key: str) -> bool:
        rows = await self._run(cypher.delete_node(label), {"key": key, "now": now_ms()})
        return bool(rows)

    async def delete_edge(self, src_label: str, src_key: str, rel: str, dst_label: str,
                          dst_key: str) -> bool:
        ref = f"{src_key}-[{rel}]->{dst_key}"
        rows = await self._run(cypher.delete_edge(src_label, rel, dst_label),
                                 {"src": src_key, "dst": dst_key, "rel": rel, "ref": ref,
                                  "now": now_ms()})
        return bool(rows)

    async def changes_since(self, since_ms: int, *, limit: int = 1000) -> GraphChanges:
        params = {"since": since_ms, "limit": _limit(limit)}
        nodes = await self._run(cypher.changed_nodes(), params, read_only=True)
        edges = await self._run(cypher.changed_edges(), params, read_only=True)
        tombs = await self._run(cypher.tombstones(), params, read_only=True)
        return GraphChanges(
            nodes=[node_of(r) for r in nodes], edges=[edge_of(r) for r in edges],
            tombstones=[Tombstone(kind=r[0], ref=r[1], deleted_at=int(r[2]),
                                  labels=tuple(r[3] or ()), rel=r[4], src_key=r[5],
                                  dst_key=r[6]) for r in tombs],
            purged_before=await self._purged_before())

    async def _purged_before(self) -> int:
        rows = await self._run(cypher.purge_horizon(), read_only=True)
        return int(rows[0][0]) if rows and rows[0][0] is not None else 0

    async def purge_tombstones(self, before_ms: int) -> int:
        # The horizon only moves forward: a purge with an older bound forgets nothing more.
        before = max(before_ms, await self._purged_before())
        rows = await self._run(cypher.purge_tombstones(), {"before": before})
        await self._run(cypher.set_purge_horizon(), {"before": before})
        return int(rows[0][0]) if rows else 0

    async def dump(self) -> tuple[list[GraphNode], list[GraphEdge]]:
        nodes = await self._run(cypher.all_nodes(), read_only=True)
        edges = await self._run(cypher.all_edges(), read_only=True)
        return [node_of(r) for r in nodes], [edge_of(r) for r in edges]

    async def ensure_schema(self) -> None:
        for statement in cypher.key_indexes(self.dialect):
            try:
                await self._query(statement)
            except Exception as exc:  # an index that exists already is the expected case
                if not _already_exists(exc):
                    raise
        self._schema_ready = True


def _already_exists(exc: Exception) -> bool:
    text = str(exc).lower()
    return "already" in text or "exists" in text
