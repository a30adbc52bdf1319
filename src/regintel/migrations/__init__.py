"""Alembic migrations; run with ``regintel migrate``."""
