"""The ontology tables (migration 0006 builds them): one per entity kind, with the columns its
fields declare (domain.ontology.KIND_FIELDS), the relation rules and the edges. They are
declared on the shared ``tables.metadata`` so the schema contract test sees them."""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    Column,
    DateTime,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Numeric,
    SmallInteger,
    Table,
    Text,
    UniqueConstraint,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.dialects.postgresql import UUID as PgUUID

from regintel.adapters.postgres import tables as t
from regintel.domain.ontology import KIND_FIELDS, LABEL_FIELD, EntityKind, FieldType

_SA_TYPES: dict[FieldType, Any] = {
    "text": Text, "int": SmallInteger, "numeric": Numeric(3, 2),
    "datetime": DateTime(timezone=True), "uuid": PgUUID(as_uuid=True), "json": JSONB,
}


def _entity_table(kind: EntityKind) -> Table:
    name = kind.table
    cols: list[Any] = [
        Column("id", PgUUID(as_uuid=True), primary_key=True,
               server_default=text("gen_random_uuid()")),
        Column("tenant_id", PgUUID(as_uuid=True), ForeignKey("tenants.id", ondelete="CASCADE"),
               nullable=False),
        Column("state_key", Text, nullable=False),
        Column("type_key", Text),
        Column("props", JSONB, nullable=False, server_default=text("'{}'::jsonb")),
        Column("created_by", PgUUID(as_uuid=True), ForeignKey("users.id", ondelete="SET NULL")),
        Column("created_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
        Column("updated_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
        Column("deleted_at", DateTime(timezone=True)),
        UniqueConstraint("tenant_id", "id", name=f"{name}_tenant_id_id_key"),
    ]
    if kind is EntityKind.PROJECT:
        cols.append(Index("onto_projects_tenant_idx", "tenant_id", "updated_at"))
    else:
        cols += [Column("project_id", PgUUID(as_uuid=True), nullable=False),
                 ForeignKeyConstraint(["tenant_id", "project_id"],
                                      ["onto_projects.tenant_id", "onto_projects.id"],
                                      ondelete="CASCADE", name=f"{name}_project_fkey"),
                 Index(f"{name}_project_idx", "tenant_id", "project_id")]
    for field, ftype in KIND_FIELDS[kind].items():
        required = field == LABEL_FIELD[kind] or kind is EntityKind.SIGNAL
        cols.append(Column(field, _SA_TYPES[ftype], nullable=not required))
    if kind is EntityKind.DOCUMENT:
        cols.append(ForeignKeyConstraint(["tenant_id", "document_id"],
                                         ["documents.tenant_id", "documents.id"],
                                         ondelete="SET NULL (document_id)",
                                         name=f"{name}_document_fkey"))
    if kind is EntityKind.INSIGHT:
        cols.append(ForeignKeyConstraint(["tenant_id", "derived_from_signal_id"],
                                         ["onto_signals.tenant_id", "onto_signals.id"],
                                         ondelete="SET NULL (derived_from_signal_id)",
                                         name=f"{name}_signal_fkey"))
    return Table(name, t.metadata, *cols)


ENTITY_TABLES: dict[EntityKind, Table] = {k: _entity_table(k) for k in EntityKind}

onto_relation_rules = Table(
    "onto_relation_rules", t.metadata,
    Column("src_kind", Text, primary_key=True),
    Column("rel", Text, primary_key=True),
    Column("dst_kind", Text, primary_key=True),
)

onto_edges = Table(
    "onto_edges", t.metadata,
    Column("id", PgUUID(as_uuid=True), primary_key=True, server_default=text("gen_random_uuid()")),
    Column("tenant_id", PgUUID(as_uuid=True), ForeignKey("tenants.id", ondelete="CASCADE"),
           nullable=False),
    Column("project_id", PgUUID(as_uuid=True), nullable=False),
    Column("src_id", PgUUID(as_uuid=True), nullable=False),
    Column("src_kind", Text, nullable=False),
    Column("rel", Text, nullable=False),
    Column("dst_id", PgUUID(as_uuid=True), nullable=False),
    Column("dst_kind", Text, nullable=False),
    Column("props", JSONB, nullable=False, server_default=text("'{}'::jsonb")),
    Column("created_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    ForeignKeyConstraint(["tenant_id", "project_id"],
                         ["onto_projects.tenant_id", "onto_projects.id"],
                         ondelete="CASCADE", name="onto_edges_project_fkey"),
    ForeignKeyConstraint(["src_kind", "rel", "dst_kind"],
                         ["onto_relation_rules.src_kind", "onto_relation_rules.rel",
                          "onto_relation_rules.dst_kind"], name="onto_edges_rule_fkey"),
    UniqueConstraint("tenant_id", "src_id", "rel", "dst_id", name="onto_edges_unique_key"),
    Index("onto_edges_project_idx", "tenant_id", "project_id"),
    Index("onto_edges_dst_idx", "tenant_id", "dst_id"),
)

# Every ontology table whose rows belong to one tenant (RLS keyed on tenant_id).
ONTOLOGY_TENANT_TABLES: tuple[Table, ...] = (*ENTITY_TABLES.values(), onto_edges)
