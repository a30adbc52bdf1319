"""The storage port the ontology services need (implemented by the Postgres repository)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol
from uuid import UUID

from regintel.domain.ontology import Edge, Entity, EntityKind, ProjectRows


class OntologyStore(Protocol):
    async def create(self, tenant_id: UUID, kind: EntityKind, project_id: UUID | None,
                     values: Mapping[str, Any]) -> Entity: ...

    async def create_many(self, tenant_id: UUID, kind: EntityKind, project_id: UUID | None,
                          rows: Sequence[Mapping[str, Any]]) -> list[Entity]: ...

    async def update(self, tenant_id: UUID, kind: EntityKind, entity_id: UUID,
                     values: Mapping[str, Any]) -> Entity: ...

    async def soft_delete(self, tenant_id: UUID, kind: EntityKind, entity_id: UUID) -> None: ...

    async def get(self, tenant_id: UUID, entity_id: UUID,
                  kind: EntityKind | None = None) -> Entity | None: ...

    async def projects(self, tenant_id: UUID) -> list[Entity]: ...

    async def members(self, tenant_id: UUID, project_id: UUID,
                      kind: EntityKind) -> list[Entity]: ...

    async def project_graph(self, tenant_id: UUID, project_id: UUID, *,
                            pipelined: bool = True) -> ProjectRows: ...

    async def project_edges(self, tenant_id: UUID, project_id: UUID) -> list[Edge]: ...

    async def edges_of(self, tenant_id: UUID, entity_id: UUID) -> list[Edge]: ...

    async def edge_exists(self, tenant_id: UUID, src_id: UUID, rel: str,
                          dst_id: UUID) -> bool: ...

    async def add_edges(self, tenant_id: UUID, project_id: UUID,
                        edges: Iterable[tuple[Entity, str, Entity]]) -> list[Edge]: ...

    async def remove_edge(self, tenant_id: UUID, edge_id: UUID) -> None: ...

    async def library_title(self, tenant_id: UUID, document_id: UUID) -> str | None: ...
