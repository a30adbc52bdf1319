"""GraphStore on a Bolt server (Memgraph or Neo4j) through the official ``neo4j`` driver.

The statements are the ones FalkorDB runs (``cypher``); only the index dialect differs, and
it is detected on first use (Neo4j answers ``dbms.components()``, Memgraph does not)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from regintel.adapters.graph.base import CypherGraphStore, check_scope
from regintel.errors import ConfigurationError, DependencyUnavailable


class BoltGraphStore(CypherGraphStore):
    def __init__(self, url: str, *, user: str | None = None, password: str | None = None,
                 database: str | None = None, _driver: Any = None) -> None:
        try:
            from neo4j import AsyncGraphDatabase
        except ImportError as exc:
            raise ConfigurationError("the Bolt graph adapter needs the 'graph' extra",
                                     hint="pip install 'regintel[graph]'") from exc
        auth = (user, password or "") if user else None
        self._owns_driver = _driver is None
        self._driver = _driver or AsyncGraphDatabase.driver(url, auth=auth)
        self._url = url
        self._database = database
        self.dialect = "unknown"
        self._created = _driver is None  # a scoped database is created on first use

    def scoped(self, scope: str) -> BoltGraphStore:
        """A database of its own per scope (Neo4j and Memgraph multi-database servers). On a
        server with one database the scoped store fails, and a tenant's view then reads the
        shared graph alone: private concepts are not kept rather than mixed into it."""
        check_scope(scope)
        base = self._database or "regintel"
        return BoltGraphStore(self._url, database=f"{base}-{scope}"[:63], _driver=self._driver)

    async def _query(self, query: str, params: Mapping[str, Any] | None = None, *,
                     read_only: bool = False) -> list[list[Any]]:
        from neo4j.exceptions import ServiceUnavailable, SessionExpired

        try:
            async with self._driver.session(database=self._database) as session:
                result = await session.run(query, dict(params or {}))
                return [list(record.values()) for record in await result.fetch(1_000_000)]
        except (ServiceUnavailable, SessionExpired, OSError) as exc:
            raise DependencyUnavailable("the graph store is unreachable") from exc

    async def ping(self) -> None:
        from neo4j.exceptions import ServiceUnavailable

        try:
            await self._driver.verify_connectivity()
        except (ServiceUnavailable, OSError) as exc:
            raise DependencyUnavailable("the graph store is unreachable") from exc

    async def ensure_schema(self) -> None:
        if not self._created:
            async with self._driver.session(database="system") as session:
                await session.run("CREATE DATABASE $name IF NOT EXISTS",
                                  {"name": self._database})
            self._created = True
        if self.dialect == "unknown":
            try:
                await self._query("CALL dbms.components() YIELD name RETURN name")
                self.dialect = "neo4j"
            except DependencyUnavailable:
                raise
            except Exception:  # Memgraph has no dbms.components procedure
                self.dialect = "memgraph"
        await super().ensure_schema()

    async def close(self) -> None:
        if self._owns_driver:
            await self._driver.close()


def bolt_store_from_url(url: str) -> BoltGraphStore:
    """``bolt://user:password@host:7687/database``: credentials and database travel in the
    URL (the driver itself takes them separately)."""
    from urllib.parse import unquote, urlsplit, urlunsplit

    parts = urlsplit(url)
    host = parts.hostname or "localhost"
    netloc = f"{host}:{parts.port}" if parts.port else host
    database = parts.path.strip("/") or None
    return BoltGraphStore(urlunsplit((parts.scheme, netloc, "", "", "")),
                          user=unquote(parts.username) if parts.username else None,
                          password=unquote(parts.password) if parts.password else None,
                          database=database)
