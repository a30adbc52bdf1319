"""Composition root: the only module that chooses and builds adapters from settings.

``Container.open`` starts (or attaches to) the embedded stores when no URL is configured, checks
that an external Postgres has pgvector, and builds the database, graph and queue clients once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Literal

from regintel.adapters.graph.falkordb_store import FalkorGraphStore
from regintel.adapters.postgres.database import Database
from regintel.adapters.queue.procrastinate_queue import ProcrastinateQueue
from regintel.errors import ConfigurationError, DependencyUnavailable, RegintelError
from regintel.ports.graph import GraphStore
from regintel.ports.queue import JobQueue
from regintel.runtime.stores import EmbeddedStores
from regintel.settings import Settings

log = logging.getLogger(__name__)

StoreStatus = Literal["ok", "down"]


@dataclass
class Container:
    settings: Settings
    database: Database
    graph: GraphStore
    queue: JobQueue
    database_url: str
    embedded: EmbeddedStores | None = None
    _closed: bool = field(default=False, repr=False)

    @classmethod
    async def open(cls, settings: Settings) -> Container:
        embedded: EmbeddedStores | None = None
        if settings.database_url is None or settings.graph_url is None:
            embedded = EmbeddedStores(
                settings.data_dir,
                postgres=settings.database_url is None,
                graph=settings.graph_url is None,
                pg_start_timeout_s=settings.database.embedded_start_timeout_s,
                graph_appendfsync=settings.graph.appendfsync,
            )
        try:
            endpoints = await asyncio.to_thread(embedded.open) if embedded else None
            if settings.database_url is not None:
                database_url = settings.database_url.get_secret_value()
            else:
                assert endpoints is not None and endpoints.postgres is not None
                database_url = endpoints.postgres.url()
            database = Database(database_url, pool_size=settings.database.pool_size,
                                connect_timeout_s=settings.database.connect_timeout_s)
            await database.ping()
            await database.ensure_pgvector()
            graph = _build_graph(settings, endpoints.graph_socket if endpoints else None)
            queue = ProcrastinateQueue(database.url)
        except BaseException:
            if embedded is not None:
                await asyncio.to_thread(embedded.close)
            raise
        return cls(settings=settings, database=database, graph=graph, queue=queue,
                   database_url=database.url, embedded=embedded)

    async def health(self) -> dict[str, StoreStatus]:
        """Each store answers a trivial query; the queue lives in the database."""
        async def check(probe: Awaitable[None]) -> StoreStatus:
            try:
                await asyncio.wait_for(probe, timeout=5)
            except (RegintelError, TimeoutError, OSError) as exc:
                log.warning("health probe failed: %s", exc)
                return "down"
            return "ok"

        db, graph = await asyncio.gather(
            check(self.database.ping()), check(self.graph.ping())
        )
        return {"db": db, "graph": graph, "queue": db}

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for closer in (self.queue.close, self.graph.close, self.database.dispose):
            try:
                await closer()
            except Exception:  # closing must reach the embedded stores whatever else failed
                log.exception("error while closing %s", closer)
        if self.embedded is not None:
            await asyncio.to_thread(self.embedded.close)


def _build_graph(settings: Settings, socket: object | None) -> GraphStore:
    url = settings.graph_url
    if url is None:
        if socket is None:
            raise DependencyUnavailable("the embedded graph store did not start")
        return FalkorGraphStore(graph_name=settings.graph.name, unix_socket_path=str(socket))
    scheme = url.split("://", 1)[0].lower()
    if scheme in {"bolt", "neo4j"}:
        raise ConfigurationError(
            "the Bolt (Memgraph/Neo4j) graph adapter is not available in this version",
            hint="use a FalkorDB server (falkor://host:port) or unset REGINTEL_GRAPH_URL",
        )
    return FalkorGraphStore(graph_name=settings.graph.name, url=url)
