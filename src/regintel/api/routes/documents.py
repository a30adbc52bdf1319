"""The document library: upload (streamed, size-capped, type sniffed; as a new version of a
document too), list by set, status, versions, delete, and set autocomplete."""

from __future__ import annotations

from collections import defaultdict
from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Depends, Query, Request, Response, status
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError

from regintel.api.deps import ContainerDep, PrincipalDep, SettingsDep, upload_quota
from regintel.api.permissions import may_delete_document
from regintel.api.schemas.documents import (
    UPLOAD_FORM_SCHEMA,
    DocumentCreate,
    DocumentGroup,
    DocumentsPublic,
    DocumentUploaded,
    SetPublic,
    SetsPublic,
    VersionsPublic,
)
from regintel.api.uploads import read_upload
from regintel.domain.documents import DocumentPublic, DocumentSetPublic
from regintel.errors import DocumentRejected

router = APIRouter(prefix="/api", tags=["documents"])
_PROBLEMS: dict[int | str, dict[str, object]] = {
    401: {"description": "Not signed in"},
    404: {"description": "No such document in this organisation"},
}


def public(document: DocumentPublic) -> DocumentPublic:
    """Only the public fields (the stored record also has paths and hashes)."""
    return DocumentPublic.model_validate(document.model_dump(include=set(
        DocumentPublic.model_fields)))


@router.post(
    "/documents", response_model=DocumentUploaded, status_code=status.HTTP_201_CREATED,
    operation_id="upload_document", dependencies=[Depends(upload_quota)],
    openapi_extra={"requestBody": {"required": True, "content": {
        "multipart/form-data": {"schema": UPLOAD_FORM_SCHEMA}}}},
    responses={**_PROBLEMS, 200: {"model": DocumentUploaded,
                                  "description": "Already in the library"},
               400: {"description": "The file is unusable (type, corrupt, empty, zip bomb)"},
               413: {"description": "Larger than the upload limit"},
               429: {"description": "Too many uploads"}})
async def upload_document(request: Request, response: Response, principal: PrincipalDep,
                          container: ContainerDep, settings: SettingsDep) -> DocumentUploaded:
    """Upload a document; it is parsed, chunked and embedded in the background (poll its
    status until `ready`). With `version_of`, a new version of that document: once ready, it
    is the version search reads (unless `effective` is in the future), and the report of
    what changed since the version before it is prepared."""
    upload = await read_upload(request, max_bytes=settings.upload.max_bytes)
    try:
        try:
            meta = DocumentCreate.model_validate(upload.fields)
        except ValidationError as exc:
            raise RequestValidationError(exc.errors()) from exc
        # The ingestion service takes bytes; the read is bounded by the upload limit above.
        data = await upload.file.read()
    finally:
        await upload.file.close()
    if not data:
        raise DocumentRejected("the file is empty", hint="choose the document again")
    submission = await container.ingestion.submit(
        principal.tenant_id, data=data, filename=upload.filename, title=meta.title,
        doc_type=meta.doc_type, version=meta.version, set_name=meta.set_name or None,
        uploaded_by=principal.user_id, version_of=meta.version_of or None,
        effective_date=meta.effective)
    if not submission.created:
        response.status_code = status.HTTP_200_OK
    return DocumentUploaded(document=public(submission.document), created=submission.created)


@router.get("/documents", response_model=DocumentsPublic, operation_id="list_documents",
            responses=_PROBLEMS)
async def list_documents(principal: PrincipalDep, container: ContainerDep) -> DocumentsPublic:
    documents = [public(d) for d in await container.documents.list(principal.tenant_id)]
    by_set: dict[UUID | None, list[DocumentPublic]] = defaultdict(list)
    sets: dict[UUID, DocumentSetPublic] = {}
    for document in documents:
        if document.set is not None:
            sets[document.set.id] = document.set
        by_set[document.set.id if document.set else None].append(document)
    ordered = sorted(sets.values(), key=lambda s: s.name.lower())
    groups = [DocumentGroup(set=s, document_ids=[d.id for d in by_set[s.id]]) for s in ordered]
    if by_set.get(None):
        groups.append(DocumentGroup(set=None, document_ids=[d.id for d in by_set[None]]))
    return DocumentsPublic(data=documents, count=len(documents), groups=groups)


@router.get("/documents/{document_id}", response_model=DocumentPublic,
            operation_id="read_document", responses=_PROBLEMS)
async def read_document(document_id: UUID, principal: PrincipalDep,
                        container: ContainerDep) -> DocumentPublic:
    """One document with its ingestion status (`queued`, `processing`, `ready`, `failed`
    with a reason)."""
    return public(await container.documents.get(principal.tenant_id, document_id))


@router.get("/documents/{document_id}/versions", response_model=VersionsPublic,
            operation_id="document_versions", responses=_PROBLEMS)
async def document_versions(document_id: UUID, principal: PrincipalDep,
                            container: ContainerDep) -> VersionsPublic:
    """The versions of the document's family, earliest first, each with its label, effective
    date and whether it is the current one."""
    chain = [public(d) for d in await container.documents.versions(principal.tenant_id,
                                                                   document_id)]
    return VersionsPublic(family_id=chain[0].family_id,
                          current_id=next((d.id for d in chain if d.is_current), None),
                          data=chain, count=len(chain))


@router.delete("/documents/{document_id}", status_code=status.HTTP_204_NO_CONTENT,
               operation_id="delete_document",
               responses={**_PROBLEMS, 403: {"description": "Needs the owner or admin role, "
                                             "or to be the document's uploader"}})
async def delete_document(document_id: UUID, principal: PrincipalDep,
                          container: ContainerDep) -> None:
    """The document, its chunks and its stored file. Owners and admins may delete any
    document; members only those they uploaded."""
    document = await container.documents.get(principal.tenant_id, document_id)
    may_delete_document(principal, document)
    await container.ingestion.delete(principal.tenant_id, document_id)


@router.get("/sets", response_model=SetsPublic, operation_id="list_sets", responses=_PROBLEMS)
async def list_sets(principal: PrincipalDep, container: ContainerDep,
                    q: Annotated[str, Query(max_length=100, description="Autocomplete: sets "
                                            "whose name contains this (any case).")] = ""
                    ) -> SetsPublic:
    counts: dict[UUID, int] = defaultdict(int)
    sets: dict[UUID, DocumentSetPublic] = {}
    for document in await container.documents.list(principal.tenant_id):
        if document.set is not None:
            sets[document.set.id] = document.set
            counts[document.set.id] += 1
    needle = q.strip().lower()
    matching = [s for s in sets.values() if needle in s.name.lower()]
    # Names that start with the typed text first, as an autocomplete list expects.
    matching.sort(key=lambda s: (not s.name.lower().startswith(needle), s.name.lower()))
    data = [SetPublic(**s.model_dump(), document_count=counts[s.id]) for s in matching]
    return SetsPublic(data=data, count=len(data))
