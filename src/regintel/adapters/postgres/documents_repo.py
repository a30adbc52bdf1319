"""DocumentStore on Postgres. Every statement runs in a tenant-bound session (RLS) and also
filters by ``tenant_id`` itself."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from sqlalchemy import (
    Boolean,
    RowMapping,
    delete,
    func,
    insert,
    literal_column,
    select,
    text,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from regintel.adapters.postgres import tables as t
from regintel.adapters.postgres import versions_sql
from regintel.adapters.postgres.database import Database
from regintel.domain.documents import (
    ChunkDraft,
    DocStatus,
    Document,
    DocumentSetPublic,
    NewDocument,
)
from regintel.errors import NotFound
from regintel.ports.embedder import Vectors

# The preset palette of the spec ("6–8 presets"); a new set takes the least-used colour.
SET_PALETTE = ("#3B82F6", "#10B981", "#8B5CF6", "#F59E0B", "#EF4444", "#14B8A6", "#EC4899",
               "#6366F1")

_DOC_COLUMNS = (t.documents, t.document_sets.c.name.label("set_name"),
                t.document_sets.c.colour.label("set_colour"),
                literal_column(versions_sql.is_current("documents"), Boolean).label("is_current"))


def select_documents(tenant_id: UUID) -> Any:
    """Documents of one tenant joined with their set (name, colour)."""
    return (select(*_DOC_COLUMNS)
            .select_from(t.documents.outerjoin(
                t.document_sets, t.document_sets.c.id == t.documents.c.set_id))
            .where(t.documents.c.tenant_id == tenant_id))


def document_from_row(row: RowMapping | dict[str, Any]) -> Document:
    data: dict[str, Any] = dict(row)
    set_id = data.pop("set_id")
    name, colour = data.pop("set_name"), data.pop("set_colour")
    data["set"] = DocumentSetPublic(id=set_id, name=name, colour=colour) if set_id else None
    return Document.model_validate(data)


class PostgresDocumentStore:
    def __init__(self, database: Database) -> None:
        self._db = database

    async def ensure_tenant(self, slug: str) -> UUID:
        """The tenant row for ``slug``, created on first use (CLI and demo tenants)."""
        async with self._db.system_session() as s:
            found = (await s.execute(select(t.tenants.c.id).where(t.tenants.c.slug == slug)))
            existing = found.scalar_one_or_none()
            if existing is not None:
                return UUID(str(existing))
            created = await s.execute(
                text("INSERT INTO tenants (name, slug) VALUES (:slug, :slug) "
                     "ON CONFLICT (slug) DO UPDATE SET slug = EXCLUDED.slug RETURNING id"),
                {"slug": slug})
            return UUID(str(created.scalar_one()))

    async def find_set(self, tenant_id: UUID, name: str) -> DocumentSetPublic | None:
        async with self._db.tenant_session(tenant_id) as s:
            row = (await s.execute(select(t.document_sets).where(
                t.document_sets.c.tenant_id == tenant_id,
                func.lower(t.document_sets.c.name) == name.strip().lower()))).mappings().first()
        return DocumentSetPublic(id=row["id"], name=row["name"], colour=row["colour"]) if row \
            else None

    async def get_or_create_set(self, tenant_id: UUID, name: str) -> DocumentSetPublic:
        clean = " ".join(name.split())
        for _ in range(2):  # a concurrent creator may win the unique index; then read theirs
            found = await self.find_set(tenant_id, clean)
            if found is not None:
                return found
            try:
                async with self._db.tenant_session(tenant_id) as s:
                    used = (await s.execute(
                        select(t.document_sets.c.colour, func.count())
                        .where(t.document_sets.c.tenant_id == tenant_id)
                        .group_by(t.document_sets.c.colour))).all()
                    counts = {colour: n for colour, n in used}
                    colour = min(SET_PALETTE, key=lambda c: (counts.get(c, 0),
                                                             SET_PALETTE.index(c)))
                    row = (await s.execute(insert(t.document_sets).values(
                        tenant_id=tenant_id, name=clean, colour=colour
                    ).returning(t.document_sets))).mappings().one()
                return DocumentSetPublic(id=row["id"], name=row["name"], colour=row["colour"])
            except IntegrityError:
                continue
        raise RuntimeError("document set creation raced twice")  # pragma: no cover

    async def _one(self, tenant_id: UUID, *conditions: Any) -> Document | None:
        async with self._db.tenant_session(tenant_id) as s:
            row = (await s.execute(select_documents(tenant_id).where(*conditions)
                                   .order_by(t.documents.c.created_at.desc()).limit(1))
                   ).mappings().first()
        return document_from_row(row) if row else None

    async def find_by_hash(self, tenant_id: UUID, content_hash: str) -> Document | None:
        return await self._one(tenant_id, t.documents.c.content_hash == content_hash)

    async def latest_titled(self, tenant_id: UUID, title: str, doc_type: str) -> Document | None:
        return await self._one(tenant_id, func.lower(t.documents.c.title) == title.lower(),
                               t.documents.c.doc_type == doc_type)

    async def find_titled(self, tenant_id: UUID, title: str) -> list[Document]:
        async with self._db.tenant_session(tenant_id) as s:
            rows = (await s.execute(select_documents(tenant_id).where(
                func.lower(t.documents.c.title) == " ".join(title.split()).lower())
                .order_by(t.documents.c.created_at))).mappings().all()
        return [document_from_row(r) for r in rows]

    async def create(self, tenant_id: UUID, new: NewDocument) -> Document:
        async with self._db.tenant_session(tenant_id) as s:
            if new.family_id is not None:
                # The first version joins the family it starts when a second one comes.
                await s.execute(update(t.documents).where(
                    t.documents.c.tenant_id == tenant_id, t.documents.c.id == new.family_id,
                    t.documents.c.family_id.is_(None)).values(family_id=new.family_id))
            document_id = (await s.execute(insert(t.documents).values(
                tenant_id=tenant_id, **new.model_dump()
            ).returning(t.documents.c.id))).scalar_one()
            if new.family_id is not None:
                # It follows the version before it in the chain (by effective date), and the
                # one after it, when it was slotted in between, now follows it.
                order = await _chain(s, tenant_id, new.family_id)
                at = order.index(document_id)
                await s.execute(update(t.documents).where(
                    t.documents.c.tenant_id == tenant_id, t.documents.c.id == document_id
                ).values(supersedes_id=order[at - 1] if at else None))
                if at + 1 < len(order):
                    await s.execute(update(t.documents).where(
                        t.documents.c.tenant_id == tenant_id,
                        t.documents.c.id == order[at + 1]).values(supersedes_id=document_id))
        return await self.get(tenant_id, document_id)

    async def versions(self, tenant_id: UUID, document_id: UUID) -> list[Document]:
        document = await self.get(tenant_id, document_id)
        if document.family_id is None:
            return [document]
        async with self._db.tenant_session(tenant_id) as s:
            order = await _chain(s, tenant_id, document.family_id)
            rows = (await s.execute(select_documents(tenant_id).where(
                t.documents.c.family_id == document.family_id))).mappings().all()
        found = {d.id: d for d in map(document_from_row, rows)}
        return [found[i] for i in order if i in found]

    async def get(self, tenant_id: UUID, document_id: UUID) -> Document:
        found = await self._one(tenant_id, t.documents.c.id == document_id)
        if found is None:
            raise NotFound(f"no document {document_id}")
        return found

    async def list(self, tenant_id: UUID) -> list[Document]:
        async with self._db.tenant_session(tenant_id) as s:
            rows = (await s.execute(select_documents(tenant_id).order_by(
                t.document_sets.c.name.nulls_first(), t.documents.c.title))).mappings().all()
        return [document_from_row(r) for r in rows]

    async def set_status(self, tenant_id: UUID, document_id: UUID, status: DocStatus, *,
                         reason: str | None = None, page_count: int | None = None,
                         char_count: int | None = None) -> None:
        values: dict[str, Any] = {"status": status.value, "status_reason": reason,
                                  "updated_at": func.now()}
        if page_count is not None:
            values["page_count"] = page_count
        if char_count is not None:
            values["char_count"] = char_count
        async with self._db.tenant_session(tenant_id) as s:
            await s.execute(update(t.documents).where(
                t.documents.c.tenant_id == tenant_id, t.documents.c.id == document_id
            ).values(**values))

    async def set_progress(self, tenant_id: UUID, document_id: UUID, *, embedded: int,
                           total: int) -> None:
        values: dict[str, Any] = {"chunks_embedded": embedded, "chunks_total": total}
        if embedded == 0:
            values["processing_started_at"] = func.now()
        async with self._db.tenant_session(tenant_id) as s:
            await s.execute(update(t.documents).where(
                t.documents.c.tenant_id == tenant_id, t.documents.c.id == document_id
            ).values(**values))

    async def publish_chunks(self, tenant_id: UUID, document_id: UUID,
                             chunks: Sequence[ChunkDraft], vectors: Vectors, *,
                             embedding_model: str) -> int:
        rows = [{"tenant_id": tenant_id, "document_id": document_id, **c.model_dump(),
                 "embedding": vectors[i].tolist()} for i, c in enumerate(chunks)]
        ids = {"t": tenant_id, "d": document_id}
        async with self._db.tenant_session(tenant_id) as s:
            await s.execute(delete(t.chunks).where(t.chunks.c.tenant_id == tenant_id,
                                                   t.chunks.c.document_id == document_id))
            for start in range(0, len(rows), 500):
                await s.execute(insert(t.chunks), rows[start:start + 500])
            # Postings and lengths for BM25 come from the stored english tsvector, so query and
            # index share one tokeniser: Postgres's.
            await s.execute(text(
                "UPDATE chunks c SET token_count = coalesce((SELECT sum(coalesce("
                "array_length(l.positions, 1), 1)) FROM unnest(c.tsv) AS l), 0) "
                "WHERE c.tenant_id = :t AND c.document_id = :d"), ids)
            await s.execute(text(
                "INSERT INTO chunk_terms (tenant_id, chunk_id, term, document_id, tf, dl) "
                "SELECT c.tenant_id, c.id, l.lexeme, c.document_id, "
                "coalesce(array_length(l.positions, 1), 1), c.token_count "
                "FROM chunks c, unnest(c.tsv) AS l "
                "WHERE c.tenant_id = :t AND c.document_id = :d"), ids)
            tokens = (await s.execute(text(
                "SELECT coalesce(sum(token_count), 0) FROM chunks "
                "WHERE tenant_id = :t AND document_id = :d"), ids)).scalar_one()
            await s.execute(update(t.documents).where(
                t.documents.c.tenant_id == tenant_id, t.documents.c.id == document_id
            ).values(status=DocStatus.READY.value, status_reason=None, chunk_count=len(rows),
                     token_total=tokens,
                     embedding_model=embedding_model, embedding_dim=int(vectors.shape[1]),
                     ready_at=func.now(), updated_at=func.now()))
        return len(rows)

    async def replace_embeddings(self, tenant_id: UUID, document_id: UUID,
                                 chunk_ids: Sequence[UUID], vectors: Vectors, *,
                                 embedding_model: str) -> None:
        async with self._db.tenant_session(tenant_id) as s:
            for chunk_id, vector in zip(chunk_ids, vectors, strict=True):
                await s.execute(update(t.chunks).where(
                    t.chunks.c.tenant_id == tenant_id, t.chunks.c.id == chunk_id
                ).values(embedding=vector.tolist()))
            await s.execute(update(t.documents).where(
                t.documents.c.tenant_id == tenant_id, t.documents.c.id == document_id
            ).values(embedding_model=embedding_model, embedding_dim=int(vectors.shape[1]),
                     updated_at=func.now()))
            # The audit's vectors of the document by another model serve no one any more.
            await s.execute(delete(t.unit_vectors).where(
                t.unit_vectors.c.tenant_id == tenant_id,
                t.unit_vectors.c.document_id == document_id,
                t.unit_vectors.c.model != embedding_model))

    async def vector_dimension(self) -> int:
        async with self._db.system_session() as s:
            return int((await s.execute(text(
                "SELECT atttypmod FROM pg_attribute "
                "WHERE attrelid = 'chunks'::regclass AND attname = 'embedding'"))).scalar_one())

    async def delete(self, tenant_id: UUID, document_id: UUID) -> Document:
        document = await self.get(tenant_id, document_id)
        docs = t.documents
        async with self._db.tenant_session(tenant_id) as s:
            # Later versions keep existing; the one after it now follows the one before it.
            await s.execute(update(docs).where(
                docs.c.tenant_id == tenant_id, docs.c.supersedes_id == document_id
            ).values(supersedes_id=document.supersedes_id))
            if document.family_id is not None:
                await _leave_family(s, tenant_id, document)
            await s.execute(delete(docs).where(docs.c.tenant_id == tenant_id,
                                               docs.c.id == document_id))
        return document


async def _chain(s: AsyncSession, tenant_id: UUID, family_id: UUID) -> list[UUID]:
    """A family's version ids in chain order, earliest first."""
    rows = await s.execute(text(versions_sql.chain(":t", ":f")), {"t": tenant_id, "f": family_id})
    return [UUID(str(r[0])) for r in rows]


async def _leave_family(s: AsyncSession, tenant_id: UUID, document: Document) -> None:
    """Before ``document`` is deleted: the family is keyed by its earliest version left, or
    dissolved when one document is left (a document with no versions has no family)."""
    assert document.family_id is not None
    rest = [i for i in await _chain(s, tenant_id, document.family_id) if i != document.id]
    docs = t.documents
    await s.execute(update(docs).where(
        docs.c.tenant_id == tenant_id, docs.c.family_id == document.family_id
    ).values(family_id=rest[0] if len(rest) > 1 else None))
