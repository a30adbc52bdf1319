"""Passages of documents their tenant marked public, for concept enrichment.

This is the one query that reads across tenants (a system session), so it is narrow on
purpose: ready documents with ``is_public`` only, joined on the document's own tenant, and
nothing but the passage text, its clause and the document's title leaves it. A document's
section key is derived from a hash of its title and version, never from its id or tenant."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from sqlalchemy import and_, or_, select

from regintel.adapters.postgres import tables as t
from regintel.adapters.postgres.database import Database
from regintel.ports.concepts import PublicPassage


def public_section_key(title: str, version: str, clause: str | None, ordinal: int) -> str:
    digest = hashlib.sha256(f"{title}\x00{version}".encode()).hexdigest()[:12]
    where = "".join(c if c.isalnum() or c in "._()-" else "-" for c in (clause or "")).strip("-")
    return f"section:pub-{digest}:{where[:60] or f'p{ordinal}'}"


def _escape(term: str) -> str:
    return term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


class PostgresPublicPassages:
    def __init__(self, database: Database) -> None:
        self._db = database

    async def passages(self, terms: Sequence[str], *, limit: int) -> list[PublicPassage]:
        words = [x for x in terms if len(x) > 2][:10]
        if not words:
            return []
        d, c = t.documents, t.chunks
        query = (select(d.c.title, d.c.version, c.c.clause, c.c.ordinal, c.c.text)
                 .select_from(c.join(d, and_(d.c.tenant_id == c.c.tenant_id,
                                             d.c.id == c.c.document_id)))
                 .where(d.c.is_public.is_(True), d.c.status == "ready",
                        or_(*(c.c.text.ilike(f"%{_escape(w)}%", escape="\\") for w in words)))
                 .order_by(d.c.title, c.c.ordinal).limit(limit))
        async with self._db.system_session() as s:
            rows = (await s.execute(query)).all()
        return [PublicPassage(section_key=public_section_key(r.title, r.version, r.clause,
                                                             r.ordinal),
                              document=f"{r.title} {r.version}".strip(),
                              clause=r.clause or f"passage {r.ordinal + 1}",
                              title=(r.clause or r.title)[:200], text=r.text)
                for r in rows]
