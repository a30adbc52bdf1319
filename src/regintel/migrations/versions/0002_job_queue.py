"""Job queue: the procrastinate schema on the same database.

The SQL comes from the installed procrastinate (``SchemaManager.get_schema()``), so a fresh
database always matches the library; upgrading procrastinate later needs its own migration files
(``procrastinate schema --migrations-path``) wrapped in a new revision here.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21
"""

from __future__ import annotations

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    from procrastinate.schema import SchemaManager

    op.execute(SchemaManager.get_schema())


def downgrade() -> None:
    op.execute("""
        DO $$
        DECLARE r record;
        BEGIN
          FOR r IN SELECT tablename FROM pg_tables
                   WHERE schemaname = 'public' AND tablename LIKE 'procrastinate\\_%' LOOP
            EXECUTE format('DROP TABLE IF EXISTS public.%I CASCADE', r.tablename);
          END LOOP;
          FOR r IN SELECT p.oid::regprocedure AS sig FROM pg_proc p
                   JOIN pg_namespace n ON n.oid = p.pronamespace
                   WHERE n.nspname = 'public' AND p.proname LIKE 'procrastinate\\_%' LOOP
            EXECUTE format('DROP FUNCTION IF EXISTS %s CASCADE', r.sig);
          END LOOP;
          FOR r IN SELECT t.typname FROM pg_type t
                   JOIN pg_namespace n ON n.oid = t.typnamespace
                   WHERE n.nspname = 'public' AND t.typname LIKE 'procrastinate\\_%'
                     AND (t.typtype = 'e' OR (t.typtype = 'c' AND EXISTS (
                          SELECT FROM pg_class c WHERE c.oid = t.typrelid AND c.relkind = 'c')))
                   LOOP
            EXECUTE format('DROP TYPE IF EXISTS public.%I CASCADE', r.typname);
          END LOOP;
        END $$""")
