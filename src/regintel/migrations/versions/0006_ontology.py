"""Compliance projects ontology (issue 6): entity tables, onto_edges, allowed relations.

Every entity table carries ``tenant_id`` with forced row-level security, a composite
``(tenant_id, project_id)`` foreign key to its project and a ``deleted_at`` soft delete.
``onto_edges`` may only use a relation listed in ``onto_relation_rules`` for its kind pair
(composite foreign key), and a trigger refuses an edge whose ends do not exist in the same
tenant and project: the database is the second wall behind the service's own validation.

The column lists and the relation rules are copied here on purpose (not imported): a migration
must keep building the schema it built the day it was written.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB, UUID

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

APP_ROLE = "regintel_app"
KINDS = ("task", "goal", "plan", "milestone", "risk", "decision", "requirement", "document",
         "output", "signal", "insight")
IMPACTS = "('low', 'medium', 'high', 'critical')"


def _ts(name: str) -> sa.Column:  # type: ignore[type-arg]
    return sa.Column(name, sa.DateTime(timezone=True))


def _text(name: str, *, nullable: bool = True) -> sa.Column:  # type: ignore[type-arg]
    return sa.Column(name, sa.Text, nullable=nullable)


def _columns(kind: str) -> list[sa.Column]:  # type: ignore[type-arg]
    match kind:
        case "task":
            return [_text("title", nullable=False), _text("description"),
                    sa.Column("priority", sa.SmallInteger), _ts("start_at"), _ts("due_at"),
                    _ts("completed_at"), _text("facet_scale")]
        case "goal":
            return [_text("name", nullable=False), _text("goal"), _text("description"),
                    _ts("target_date"), _ts("completed_at")]
        case "plan":
            return [_text("name", nullable=False), _text("plan"), _text("description")]
        case "milestone":
            return [_text("title", nullable=False), _text("milestone"), _text("description"),
                    _ts("due_at"), _ts("completed_at")]
        case "risk":
            return [_text("title", nullable=False), _text("content"), _text("impact"),
                    sa.Column("probability", sa.Numeric(3, 2)), _ts("mitigated_at")]
        case "decision":
            return [_text("title", nullable=False), _text("description"), _text("outcome"),
                    _text("rationale"), _ts("decision_at")]
        case "requirement":
            return [_text("text", nullable=False), sa.Column("priority", sa.SmallInteger)]
        case "document":
            return [_text("title", nullable=False), _text("description"), _text("content"),
                    sa.Column("document_id", UUID(as_uuid=True))]
        case "output":
            return [_text("name", nullable=False), _text("description")]
        case "signal":
            return [_text("channel", nullable=False),
                    sa.Column("ts", sa.DateTime(timezone=True), nullable=False,
                              server_default=sa.func.now()),
                    sa.Column("payload", JSONB, nullable=False,
                              server_default=sa.text("'{}'::jsonb"))]
        case "insight":
            return [_text("title", nullable=False),
                    sa.Column("derived_from_signal_id", UUID(as_uuid=True))]
    raise ValueError(kind)


def _constraints(kind: str) -> list[sa.Constraint]:
    table = f"onto_{kind}s"
    match kind:
        case "task":
            return [sa.CheckConstraint("priority BETWEEN 1 AND 5", name=f"{table}_priority_check")]
        case "requirement":
            return [sa.CheckConstraint("priority BETWEEN 1 AND 5", name=f"{table}_priority_check")]
        case "risk":
            return [sa.CheckConstraint(f"impact IN {IMPACTS}", name=f"{table}_impact_check"),
                    sa.CheckConstraint("probability BETWEEN 0 AND 1",
                                       name=f"{table}_probability_check")]
        case "document":
            # Deleting a library document keeps the project's entry, without its link.
            return [sa.ForeignKeyConstraint(
                ["tenant_id", "document_id"], ["documents.tenant_id", "documents.id"],
                ondelete="SET NULL (document_id)", name=f"{table}_document_fkey")]
        case "insight":
            return [sa.ForeignKeyConstraint(
                ["tenant_id", "derived_from_signal_id"],
                ["onto_signals.tenant_id", "onto_signals.id"],
                ondelete="SET NULL (derived_from_signal_id)", name=f"{table}_signal_fkey")]
    return []


_DEFAULT_STATE = {"task": "todo", "risk": "open", "requirement": "open", "decision": "decided",
                  "milestone": "pending", "document": "draft", "signal": "new"}


def _common(table: str, state: str) -> list[sa.Column | sa.Constraint]:  # type: ignore[type-arg]
    return [
        sa.Column("id", UUID(as_uuid=True), primary_key=True,
                  server_default=sa.text("gen_random_uuid()")),
        sa.Column("tenant_id", UUID(as_uuid=True),
                  sa.ForeignKey("tenants.id", ondelete="CASCADE"), nullable=False),
        sa.Column("state_key", sa.Text, nullable=False, server_default=state),
        sa.Column("type_key", sa.Text),
        sa.Column("props", JSONB, nullable=False, server_default=sa.text("'{}'::jsonb")),
        sa.Column("created_by", UUID(as_uuid=True),
                  sa.ForeignKey("users.id", ondelete="SET NULL")),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False,
                  server_default=sa.func.now()),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False,
                  server_default=sa.func.now()),
        _ts("deleted_at"),
        sa.UniqueConstraint("tenant_id", "id", name=f"{table}_tenant_id_id_key"),
    ]


RELATION_RULES: tuple[tuple[str, str, str], ...] = (
    *(("project", f"has_{kind}", kind) for kind in KINDS),
    ("task", "depends_on", "task"),
    ("task", "supports_goal", "goal"), ("plan", "supports_goal", "goal"),
    ("milestone", "supports_goal", "goal"), ("output", "supports_goal", "goal"),
    ("requirement", "supports_goal", "goal"),
    ("plan", "has_task", "task"), ("goal", "has_milestone", "milestone"),
    ("task", "targets_milestone", "milestone"), ("task", "produces", "output"),
    ("task", "mitigates", "risk"), ("decision", "mitigates", "risk"),
    ("plan", "mitigates", "risk"), ("requirement", "mitigates", "risk"),
    ("task", "addresses", "requirement"), ("decision", "addresses", "requirement"),
    ("output", "addresses", "requirement"), ("plan", "addresses", "requirement"),
    ("risk", "threatens", "goal"), ("risk", "threatens", "milestone"),
    ("risk", "affects", "requirement"),
    ("decision", "informs", "task"), ("decision", "informs", "plan"),
    ("decision", "informs", "requirement"),
    ("requirement", "references", "document"), ("risk", "references", "document"),
    ("task", "references", "document"), ("decision", "references", "document"),
    ("output", "references", "document"),
    ("signal", "raises", "risk"), ("insight", "derived_from", "signal"),
    ("insight", "informs", "risk"), ("insight", "informs", "requirement"),
    ("insight", "informs", "decision"),
)

EDGE_GUARD = """
CREATE FUNCTION regintel_onto_edge_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  side text; end_kind text; end_id uuid; end_tenant uuid; end_project uuid;
BEGIN
  FOREACH side IN ARRAY ARRAY['src', 'dst'] LOOP
    IF side = 'src' THEN end_kind := NEW.src_kind; end_id := NEW.src_id;
    ELSE end_kind := NEW.dst_kind; end_id := NEW.dst_id; END IF;
    end_tenant := NULL;
    IF end_kind = 'project' THEN
      SELECT tenant_id, id INTO end_tenant, end_project FROM onto_projects WHERE id = end_id;
    ELSE
      -- end_kind is constrained by the relation rules foreign key, so the name is safe.
      EXECUTE format('SELECT tenant_id, project_id FROM %I WHERE id = $1',
                     'onto_' || end_kind || 's')
        INTO end_tenant, end_project USING end_id;
    END IF;
    IF end_tenant IS NULL THEN
      RAISE EXCEPTION 'onto_edges: % % does not exist', end_kind, end_id
        USING ERRCODE = 'foreign_key_violation';
    END IF;
    IF end_tenant <> NEW.tenant_id THEN
      RAISE EXCEPTION 'onto_edges: % % belongs to another tenant', end_kind, end_id
        USING ERRCODE = 'check_violation';
    END IF;
    IF end_project <> NEW.project_id THEN
      RAISE EXCEPTION 'onto_edges: % % belongs to another project', end_kind, end_id
        USING ERRCODE = 'check_violation';
    END IF;
  END LOOP;
  RETURN NEW;
END $$"""


def _protect(table: str) -> None:
    op.execute(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")
    op.execute(f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY")
    op.execute(f"CREATE POLICY tenant_isolation ON {table} "
               "USING (tenant_id = regintel_current_tenant()) "
               "WITH CHECK (tenant_id = regintel_current_tenant())")


def upgrade() -> None:
    op.create_table(
        "onto_projects", *_common("onto_projects", "active"),
        _text("name", nullable=False), _text("description"),
        _text("facet_context"), _text("facet_scale"), _text("facet_stage"),
        _ts("start_at"), _ts("end_at"),
        _text("next_step_short"), _text("next_step_long"), _text("next_step_source"),
        _ts("next_step_updated_at"),
        sa.Column("context_document_id", UUID(as_uuid=True)),
    )
    op.create_index("onto_projects_tenant_idx", "onto_projects", ["tenant_id", "updated_at"])
    for kind in KINDS:
        table = f"onto_{kind}s"
        op.create_table(
            table, *_common(table, _DEFAULT_STATE.get(kind, "active")),
            sa.Column("project_id", UUID(as_uuid=True), nullable=False),
            *_columns(kind), *_constraints(kind),
            sa.ForeignKeyConstraint(["tenant_id", "project_id"],
                                    ["onto_projects.tenant_id", "onto_projects.id"],
                                    ondelete="CASCADE", name=f"{table}_project_fkey"),
        )
        op.create_index(f"{table}_project_idx", table, ["tenant_id", "project_id"])

    op.create_table(
        "onto_relation_rules",
        sa.Column("src_kind", sa.Text, primary_key=True),
        sa.Column("rel", sa.Text, primary_key=True),
        sa.Column("dst_kind", sa.Text, primary_key=True),
    )
    op.bulk_insert(sa.table("onto_relation_rules", sa.column("src_kind"), sa.column("rel"),
                            sa.column("dst_kind")),
                   [{"src_kind": s, "rel": r, "dst_kind": d} for s, r, d in RELATION_RULES])
    # The rules are product data, not tenant data: the application may read them only.
    op.execute(f"REVOKE INSERT, UPDATE, DELETE ON onto_relation_rules FROM {APP_ROLE}")

    op.create_table(
        "onto_edges",
        sa.Column("id", UUID(as_uuid=True), primary_key=True,
                  server_default=sa.text("gen_random_uuid()")),
        sa.Column("tenant_id", UUID(as_uuid=True),
                  sa.ForeignKey("tenants.id", ondelete="CASCADE"), nullable=False),
        sa.Column("project_id", UUID(as_uuid=True), nullable=False),
        sa.Column("src_id", UUID(as_uuid=True), nullable=False),
        sa.Column("src_kind", sa.Text, nullable=False),
        sa.Column("rel", sa.Text, nullable=False),
        sa.Column("dst_id", UUID(as_uuid=True), nullable=False),
        sa.Column("dst_kind", sa.Text, nullable=False),
        sa.Column("props", JSONB, nullable=False, server_default=sa.text("'{}'::jsonb")),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False,
                  server_default=sa.func.now()),
        sa.ForeignKeyConstraint(["tenant_id", "project_id"],
                                ["onto_projects.tenant_id", "onto_projects.id"],
                                ondelete="CASCADE", name="onto_edges_project_fkey"),
        sa.ForeignKeyConstraint(["src_kind", "rel", "dst_kind"],
                                ["onto_relation_rules.src_kind", "onto_relation_rules.rel",
                                 "onto_relation_rules.dst_kind"],
                                name="onto_edges_rule_fkey"),
        sa.UniqueConstraint("tenant_id", "src_id", "rel", "dst_id", name="onto_edges_unique_key"),
        sa.CheckConstraint("src_id <> dst_id", name="onto_edges_no_self_loop_check"),
    )
    op.create_index("onto_edges_project_idx", "onto_edges", ["tenant_id", "project_id"])
    op.create_index("onto_edges_dst_idx", "onto_edges", ["tenant_id", "dst_id"])
    op.execute(EDGE_GUARD)
    op.execute("CREATE TRIGGER onto_edges_guard BEFORE INSERT OR UPDATE ON onto_edges "
               "FOR EACH ROW EXECUTE FUNCTION regintel_onto_edge_guard()")

    for table in ("onto_projects", *(f"onto_{k}s" for k in KINDS), "onto_edges"):
        _protect(table)


def downgrade() -> None:
    op.drop_table("onto_edges")
    op.execute("DROP FUNCTION regintel_onto_edge_guard()")
    op.drop_table("onto_relation_rules")
    for kind in reversed(KINDS):  # insights before signals (insights point at signals)
        op.drop_table(f"onto_{kind}s")
    op.drop_table("onto_projects")
