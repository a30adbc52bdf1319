"""Turning parsed documents into chunks ready for embedding."""

from __future__ import annotations

from regintel.ingestion.chunking import chunk_document
from regintel.ingestion.clauses import find_clauses

__all__ = ["chunk_document", "find_clauses"]
