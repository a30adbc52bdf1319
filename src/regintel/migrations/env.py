"""Alembic environment. ``regintel migrate`` passes an open connection and the typed index
settings in ``config.attributes``; nothing here reads the environment."""

from __future__ import annotations

from alembic import context

from regintel.adapters.postgres.tables import metadata

config = context.config
connection = config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run migrations through `regintel migrate`, which supplies the connection")

context.configure(connection=connection, target_metadata=metadata, transaction_per_migration=True)
with context.begin_transaction():
    context.run_migrations()
