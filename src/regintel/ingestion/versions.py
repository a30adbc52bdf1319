"""Uploading a new version of a document (issue 48): which document the upload is a version
of, named by its id or its exact title, checked before anything is stored."""

from __future__ import annotations

from uuid import UUID

from regintel.domain.documents import DocType, Document, titled
from regintel.errors import InvalidRequest, NotFound
from regintel.ports.library import DocumentStore

LIST_HINT = "give its id or its exact title (`regintel documents list`, or the Documents tab)"


async def version_base(documents: DocumentStore, tenant_id: UUID, ref: str) -> Document:
    """The document ``ref`` names (an id, or an exact title) in this tenant's library. A title
    several documents carry is accepted when they are versions of one family (any of them
    stands for it); ``NotFound`` alike for an unknown id and another organisation's."""
    ref = ref.strip()
    try:
        document_id = UUID(ref)
    except ValueError:
        pass
    else:
        try:
            return await documents.get(tenant_id, document_id)
        except NotFound as exc:
            raise NotFound(f"no document {ref} in this library to add a version to",
                           hint=LIST_HINT) from exc
    found = await documents.find_titled(tenant_id, ref)
    if not found:
        raise NotFound(f"no document titled \"{ref}\" in this library to add a version to",
                       hint=LIST_HINT)
    families = {d.family_id or d.id for d in found}
    if len(families) > 1:
        raise InvalidRequest(
            f"{len(found)} documents are titled \"{ref}\"",
            hint="give the id of the one this is a version of: "
                 + ", ".join(f"{d.id} ({titled(d.title, d.version)})" for d in found))
    return found[-1]


async def check_new_version(documents: DocumentStore, tenant_id: UUID, base: Document, *,
                            version: str, doc_type: DocType | None) -> None:
    """A new version needs a label that none of its family has yet, and is of its type."""
    if not version.strip():
        raise InvalidRequest("a new version needs its version label",
                             hint="e.g. --version 2014 (the form's Version field)")
    if doc_type is not None and doc_type is not base.doc_type:
        raise InvalidRequest(f"\"{base.title}\" is a {base.doc_type.label}; a new version of "
                             f"it cannot be a {doc_type.label}",
                             hint="leave the type out: a version takes its document's")
    label = version.strip().lower()
    for member in await documents.versions(tenant_id, base.id):
        if member.version.strip().lower() == label:
            raise InvalidRequest(f"\"{base.title}\" already has a version {version.strip()} "
                                 f"({member.id})", hint="give the new version another label")
