"""The tenant-scoped repository over the ontology tables (ontology_tables.py).

Every statement filters by ``tenant_id`` itself; row-level security is the second wall.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Mapping, Sequence
from contextvars import ContextVar
from typing import Any, cast
from uuid import UUID

import psycopg
from psycopg.abc import AdaptContext, Buffer
from psycopg.pq import Format
from psycopg.rows import dict_row
from psycopg.types.json import set_json_loads
from psycopg.types.uuid import UUIDLoader
from sqlalchemy import (
    delete,
    func,
    insert,
    literal,
    select,
    union_all,
    update,
)
from sqlalchemy.engine import RowMapping
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from regintel.adapters.postgres import tables as t
from regintel.adapters.postgres.database import Database
from regintel.adapters.postgres.ontology_tables import (
    ENTITY_TABLES,
    onto_edges,
    onto_relation_rules,
)
from regintel.domain.ontology import (
    MEMBER_KINDS,
    Edge,
    EdgeRef,
    Entity,
    EntityKind,
    ProjectRows,
)
from regintel.errors import InvalidRequest, NotFound

_EDGE_COLS = (onto_edges.c.id, onto_edges.c.project_id, onto_edges.c.src_id,
              onto_edges.c.src_kind, onto_edges.c.rel, onto_edges.c.dst_id,
              onto_edges.c.dst_kind, onto_edges.c.created_at)


_KINDS = {k.value: k for k in EntityKind}
UUID_OID = 2950
_C_UUID_LOADER = psycopg.adapters.get_loader(UUID_OID, Format.TEXT) or UUIDLoader
_PROJECT_SQL = ("SELECT * FROM onto_projects WHERE tenant_id = %(t)s AND id = %(p)s "
                "AND deleted_at IS NULL")
# The loader reads what light views and the snapshot need: no tenant/project/audit ids, long
# texts cut to 400 characters (light views show at most 200; the detail tools read full rows).
_SKIPPED = frozenset({"tenant_id", "project_id", "created_by", "deleted_at", "goal", "plan",
                      "milestone"})
_CUT = frozenset({"description", "content", "outcome", "rationale"})


def _member_sql(kind: EntityKind) -> str:
    columns = [f"left({c.name}, 400) AS {c.name}" if c.name in _CUT else c.name
               for c in ENTITY_TABLES[kind].c if c.name not in _SKIPPED]
    return (f"SELECT {', '.join(columns)} FROM {kind.table} WHERE tenant_id = %(t)s "
            "AND project_id = %(p)s AND deleted_at IS NULL")


_MEMBER_SQL = {kind: _member_sql(kind) for kind in EntityKind if kind is not EntityKind.PROJECT}

_EDGES_SQL = ("SELECT id, src_id, src_kind, rel, dst_id, dst_kind FROM onto_edges "
              "WHERE tenant_id = %(t)s AND project_id = %(p)s")


# The ids seen by the current project read; set around it by ``project_graph``.
_SEEN_UUIDS: ContextVar[dict[bytes, UUID] | None] = ContextVar("regintel_seen_uuids",
                                                                default=None)


class _InterningUUIDLoader(UUIDLoader):
    """One object per distinct id for a whole project read: the 10,000 edge ends of a large
    project become the entities' own id objects, so the graph's look-ups take the identity fast
    path and the garbage collector tracks far fewer objects. (One class for all reads, the ids
    in a context variable: a class per read would make every read's ids cyclic garbage.)"""

    def __init__(self, oid: int, context: AdaptContext | None = None) -> None:
        super().__init__(oid, context)
        self._parse = _C_UUID_LOADER(oid, context)  # psycopg's own (C) parser for new ids

    def load(self, data: Buffer) -> UUID:
        seen = _SEEN_UUIDS.get()
        if seen is None:
            return cast(UUID, self._parse.load(data))
        key = bytes(data)
        found = seen.get(key)
        if found is None:
            found = seen[key] = cast(UUID, self._parse.load(data))
        return found


def _json_loads(data: bytes | str) -> Any:
    # json.loads on bytes first sniffs the encoding in Python; Postgres sends UTF-8.
    return json.loads(data.decode() if isinstance(data, bytes) else data)


def _entity(kind: EntityKind, row: RowMapping | dict[str, Any]) -> Entity:
    data = dict(row)
    project_id = data["id"] if kind is EntityKind.PROJECT else data["project_id"]
    # model_construct: rows come straight from our own typed columns; validating thousands of
    # them on every context build would cost more than the whole query.
    return Entity.model_construct(id=data["id"], kind=kind, project_id=project_id, data=data)


def _edge(row: RowMapping) -> Edge:
    return Edge.model_construct(
        id=row["id"], project_id=row["project_id"], src_id=row["src_id"],
        src_kind=EntityKind(row["src_kind"]), rel=row["rel"], dst_id=row["dst_id"],
        dst_kind=EntityKind(row["dst_kind"]), created_at=row["created_at"])


def _db_error(exc: DBAPIError) -> InvalidRequest:
    detail = str(exc.orig).splitlines()[0] if exc.orig else str(exc)
    return InvalidRequest(f"the database refused the change: {detail}")


class PostgresOntologyStore:
    def __init__(self, database: Database) -> None:
        self._db = database

    async def create(self, tenant_id: UUID, kind: EntityKind, project_id: UUID | None,
                     values: Mapping[str, Any]) -> Entity:
        return (await self.create_many(tenant_id, kind, project_id, [values]))[0]

    async def create_many(self, tenant_id: UUID, kind: EntityKind, project_id: UUID | None,
                          rows: Sequence[Mapping[str, Any]]) -> list[Entity]:
        table = ENTITY_TABLES[kind]
        scope = {} if kind is EntityKind.PROJECT else {"project_id": project_id}
        values = [{**r, **scope, "tenant_id": tenant_id} for r in rows]
        if not values:
            return []
        try:
            async with self._db.tenant_session(tenant_id) as s:
                result = await s.execute(insert(table).returning(*table.c), values)
                return [_entity(kind, r) for r in result.mappings().all()]
        except DBAPIError as exc:
            raise _db_error(exc) from exc

    async def update(self, tenant_id: UUID, kind: EntityKind, entity_id: UUID,
                     values: Mapping[str, Any]) -> Entity:
        table = ENTITY_TABLES[kind]
        try:
            async with self._db.tenant_session(tenant_id) as s:
                row = (await s.execute(
                    update(table).where(table.c.tenant_id == tenant_id, table.c.id == entity_id,
                                        table.c.deleted_at.is_(None))
                    .values(**values, updated_at=func.now()).returning(*table.c))
                ).mappings().first()
        except DBAPIError as exc:
            raise _db_error(exc) from exc
        if row is None:
            raise NotFound(f"no {kind.value} {entity_id}")
        return _entity(kind, row)

    async def soft_delete(self, tenant_id: UUID, kind: EntityKind, entity_id: UUID) -> None:
        table = ENTITY_TABLES[kind]
        async with self._db.tenant_session(tenant_id) as s:
            done = await s.execute(
                update(table).where(table.c.tenant_id == tenant_id, table.c.id == entity_id,
                                    table.c.deleted_at.is_(None))
                .values(deleted_at=func.now(), updated_at=func.now()).returning(table.c.id))
            if done.first() is None:
                raise NotFound(f"no {kind.value} {entity_id}")

    async def get(self, tenant_id: UUID, entity_id: UUID,
                  kind: EntityKind | None = None) -> Entity | None:
        """The live entity with that id, of any kind when ``kind`` is not given."""
        async with self._db.tenant_session(tenant_id) as s:
            if kind is None:
                kind = await self._kind_of(s, tenant_id, entity_id)
                if kind is None:
                    return None
            table = ENTITY_TABLES[kind]
            row = (await s.execute(select(table).where(
                table.c.tenant_id == tenant_id, table.c.id == entity_id,
                table.c.deleted_at.is_(None)))).mappings().first()
        return _entity(kind, row) if row is not None else None

    async def _kind_of(self, s: AsyncSession, tenant_id: UUID, entity_id: UUID
                       ) -> EntityKind | None:
        probes = [select(literal(k.value).label("kind")).select_from(tb)
                  .where(tb.c.tenant_id == tenant_id, tb.c.id == entity_id,
                         tb.c.deleted_at.is_(None))
                  for k, tb in ENTITY_TABLES.items()]
        found = (await s.execute(union_all(*probes).limit(1))).scalar_one_or_none()
        return EntityKind(found) if found else None

    async def projects(self, tenant_id: UUID) -> list[Entity]:
        table = ENTITY_TABLES[EntityKind.PROJECT]
        async with self._db.tenant_session(tenant_id) as s:
            rows = (await s.execute(select(table).where(
                table.c.tenant_id == tenant_id, table.c.deleted_at.is_(None))
                .order_by(table.c.updated_at.desc()))).mappings().all()
        return [_entity(EntityKind.PROJECT, r) for r in rows]

    async def members(self, tenant_id: UUID, project_id: UUID, kind: EntityKind) -> list[Entity]:
        """The live entities of one kind in one project (one of the loader's parallel reads)."""
        table = ENTITY_TABLES[kind]
        async with self._db.tenant_session(tenant_id) as s:
            rows = (await s.execute(select(table).where(
                table.c.tenant_id == tenant_id, table.c.project_id == project_id,
                table.c.deleted_at.is_(None)))).mappings().all()
        return [_entity(kind, r) for r in rows]

    async def project_graph(self, tenant_id: UUID, project_id: UUID, *,
                            pipelined: bool = True) -> ProjectRows:
        """The project row, its live entities of every kind (light columns) and its edges: one
        query per table, all issued at once. Pipelined (default), they go down one connection
        of one tenant session without waiting for each other; otherwise each runs in its own
        tenant session concurrently. On a small machine the extra sessions (four round trips
        and a server backend each) cost more than they save; ``regintel bench ontology
        --sessions`` measures the other way."""
        params = {"t": tenant_id, "p": project_id}
        queries: list[tuple[EntityKind | None, str]] = [
            (k, _PROJECT_SQL if k is EntityKind.PROJECT else _MEMBER_SQL[k]) for k in EntityKind]
        queries.append((None, _EDGES_SQL))

        async def start(s: AsyncSession, kind: EntityKind | None, sql: str
                        ) -> psycopg.AsyncCursor[Any]:
            raw = await (await s.connection()).get_raw_connection()
            pg = cast(psycopg.AsyncConnection[Any], raw.driver_connection)
            cursor = pg.cursor(row_factory=dict_row) if kind else pg.cursor()
            cursor.adapters.register_loader("uuid", _InterningUUIDLoader)
            set_json_loads(_json_loads, cursor)
            await cursor.execute(sql, params)
            return cursor

        async def alone(kind: EntityKind | None, sql: str) -> list[Any]:
            async with self._db.tenant_session(tenant_id) as s:
                return await (await start(s, kind, sql)).fetchall()

        token = _SEEN_UUIDS.set({})
        try:
            if pipelined:
                async with self._db.tenant_session(tenant_id) as s:
                    raw = await (await s.connection()).get_raw_connection()
                    pg = cast(psycopg.AsyncConnection[Any], raw.driver_connection)
                    async with pg.pipeline():
                        cursors = [await start(s, kind, sql) for kind, sql in queries]
                    results = [await cursor.fetchall() for cursor in cursors]
            else:
                results = list(await asyncio.gather(*(alone(k, sql) for k, sql in queries)))
        finally:
            _SEEN_UUIDS.reset(token)
        edge_rows = results.pop()
        project = results.pop(0)
        kinds = _KINDS
        return ProjectRows.model_construct(  # built from our own typed rows: no re-validation
            project=_entity(EntityKind.PROJECT, project[0]) if project else None,
            members={kind: [Entity.model_construct(id=r["id"], kind=kind,
                                                   project_id=project_id, data=r)
                            for r in found] for kind, found in zip(MEMBER_KINDS, results,
                                                                   strict=True)},
            edges=[EdgeRef(i, s_, kinds[sk], rel, d, kinds[dk])
                   for i, s_, sk, rel, d, dk in edge_rows])

    async def project_edges(self, tenant_id: UUID, project_id: UUID) -> list[Edge]:
        async with self._db.tenant_session(tenant_id) as s:
            rows = (await s.execute(select(*_EDGE_COLS).where(
                onto_edges.c.tenant_id == tenant_id,
                onto_edges.c.project_id == project_id))).mappings().all()
        return [_edge(r) for r in rows]

    async def edges_of(self, tenant_id: UUID, entity_id: UUID) -> list[Edge]:
        async with self._db.tenant_session(tenant_id) as s:
            rows = (await s.execute(select(*_EDGE_COLS).where(
                onto_edges.c.tenant_id == tenant_id,
                (onto_edges.c.src_id == entity_id) | (onto_edges.c.dst_id == entity_id))
                .order_by(onto_edges.c.created_at))).mappings().all()
        return [_edge(r) for r in rows]

    async def edge_exists(self, tenant_id: UUID, src_id: UUID, rel: str, dst_id: UUID) -> bool:
        async with self._db.tenant_session(tenant_id) as s:
            row = (await s.execute(select(onto_edges.c.id).where(
                onto_edges.c.tenant_id == tenant_id, onto_edges.c.src_id == src_id,
                onto_edges.c.rel == rel, onto_edges.c.dst_id == dst_id))).first()
        return row is not None

    async def add_edges(self, tenant_id: UUID, project_id: UUID,
                        edges: Iterable[tuple[Entity, str, Entity]]) -> list[Edge]:
        values = [{"tenant_id": tenant_id, "project_id": project_id, "src_id": s.id,
                   "src_kind": s.kind.value, "rel": rel, "dst_id": d.id,
                   "dst_kind": d.kind.value} for s, rel, d in edges]
        if not values:
            return []
        try:
            async with self._db.tenant_session(tenant_id) as s:
                rows = (await s.execute(insert(onto_edges).returning(*_EDGE_COLS), values)
                        ).mappings().all()
        except IntegrityError as exc:
            raise _db_error(exc) from exc
        except DBAPIError as exc:  # the edge guard trigger (another tenant or project)
            raise _db_error(exc) from exc
        return [_edge(r) for r in rows]

    async def remove_edge(self, tenant_id: UUID, edge_id: UUID) -> None:
        async with self._db.tenant_session(tenant_id) as s:
            done = await s.execute(delete(onto_edges).where(
                onto_edges.c.tenant_id == tenant_id, onto_edges.c.id == edge_id)
                .returning(onto_edges.c.id))
            if done.first() is None:
                raise NotFound(f"no edge {edge_id}")

    async def relation_rules(self) -> set[tuple[str, str, str]]:
        async with self._db.system_session() as s:
            rows = (await s.execute(select(onto_relation_rules))).all()
        return {(r[0], r[1], r[2]) for r in rows}

    async def library_title(self, tenant_id: UUID, document_id: UUID) -> str | None:
        async with self._db.tenant_session(tenant_id) as s:
            return (await s.execute(select(t.documents.c.title).where(
                t.documents.c.tenant_id == tenant_id, t.documents.c.id == document_id))
            ).scalar_one_or_none()

