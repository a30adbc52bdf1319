"""GraphStore on FalkorDB (embedded over a unix socket, or a server by URL)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from regintel.adapters.graph import cypher
from regintel.errors import DependencyUnavailable
from regintel.ports.graph import GraphEdge, GraphNode, GraphValue


def _now_ms() -> int:
    return int(time.time() * 1000)


def _node(row: Sequence[Any]) -> GraphNode:
    labels, key, props = row
    return GraphNode(labels=tuple(labels), key=key, properties=dict(props))


class FalkorGraphStore:
    def __init__(self, *, graph_name: str, unix_socket_path: str | None = None,
                 url: str | None = None) -> None:
        from falkordb.asyncio import FalkorDB

        if unix_socket_path is not None:
            self._db = FalkorDB(unix_socket_path=unix_socket_path, max_connections=32,
                                socket_timeout=30)
        elif url is not None:
            self._db = FalkorDB.from_url(
                url.replace("falkor://", "redis://", 1).replace("falkors://", "rediss://", 1)
            )
        else:
            raise ValueError("either unix_socket_path or url is required")
        self._graph = self._db.select_graph(graph_name)

    async def _query(self, query: str, params: Mapping[str, Any] | None = None, *,
                     read_only: bool = False) -> list[list[Any]]:
        import redis

        try:
            if read_only:
                result = await self._graph.ro_query(query, dict(params or {}))
            else:
                result = await self._graph.query(query, dict(params or {}))
        except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
            raise DependencyUnavailable("the graph store is unreachable") from exc
        except redis.ResponseError as exc:
            # FalkorDB creates a graph on its first write; reading one never written is empty.
            if read_only and "empty key" in str(exc):
                return []
            raise
        return list(result.result_set)

    async def ping(self) -> None:
        """GRAPH.LIST proves both the server and the FalkorDB module answer."""
        import redis

        try:
            await self._db.list_graphs()
        except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
            raise DependencyUnavailable("the graph store is unreachable") from exc

    async def merge_node(self, label: str, key: str,
                         properties: Mapping[str, GraphValue]) -> GraphNode:
        rows = await self._query(cypher.merge_node(label),
                                 {"key": key, "props": dict(properties), "now": _now_ms()})
        return _node(rows[0])

    async def get_nodes(self, label: str, keys: Sequence[str]) -> list[GraphNode]:
        rows = await self._query(cypher.get_nodes(label), {"keys": list(keys)}, read_only=True)
        return [_node(r) for r in rows]

    async def merge_edge(self, src_label: str, src_key: str, rel: str, dst_label: str,
                         dst_key: str, properties: Mapping[str, GraphValue]) -> GraphEdge:
        rows = await self._query(
            cypher.merge_edge(src_label, rel, dst_label),
            {"src": src_key, "dst": dst_key, "props": dict(properties), "now": _now_ms()},
        )
        if not rows:
            raise LookupError(f"cannot link {src_label}:{src_key} to {dst_label}:{dst_key}: "
                              "an end node does not exist")
        rel_type, src, dst, props = rows[0]
        return GraphEdge(rel=rel_type, src_key=src, dst_key=dst, properties=dict(props))

    async def neighbours(self, label: str, key: str) -> list[tuple[GraphEdge, GraphNode]]:
        rows = await self._query(cypher.neighbours(label), {"key": key}, read_only=True)
        return [
            (GraphEdge(rel=r[0], src_key=r[1], dst_key=r[2], properties=dict(r[3])),
             _node(r[4:7]))
            for r in rows
        ]

    async def count_nodes(self, label: str) -> int:
        rows = await self._query(cypher.count_nodes(label), read_only=True)
        return int(rows[0][0]) if rows else 0

    async def close(self) -> None:
        await self._db.connection.aclose()

