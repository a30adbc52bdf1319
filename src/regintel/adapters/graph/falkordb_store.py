"""GraphStore on FalkorDB (embedded over a unix socket, or a server by URL)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from regintel.adapters.graph.base import CypherGraphStore, check_scope
from regintel.errors import DependencyUnavailable


class FalkorGraphStore(CypherGraphStore):
    dialect = "falkordb"

    def __init__(self, *, graph_name: str, unix_socket_path: str | None = None,
                 url: str | None = None, _db: Any = None) -> None:
        from falkordb.asyncio import FalkorDB

        self._graph_name = graph_name
        self._owns_connection = _db is None
        if _db is not None:  # a scoped graph shares its parent's connection pool
            self._db = _db
        elif unix_socket_path is not None:
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

    def scoped(self, scope: str) -> FalkorGraphStore:
        """FalkorDB keeps many graphs per server: a scope is a graph of its own."""
        check_scope(scope)
        return FalkorGraphStore(graph_name=f"{self._graph_name}:{scope}", _db=self._db)

    async def close(self) -> None:
        if self._owns_connection:
            await self._db.connection.aclose()
