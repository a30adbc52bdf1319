"""What changed between two versions of a document in the library (issue 48): the change
report of changes/ read from the two documents' stored text. Both must be the caller's
organisation's and ready; the library does not yet chain versions, so the caller names the
earlier one."""

from __future__ import annotations

import asyncio
from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Query

from regintel.api.deps import ContainerDep, PrincipalDep
from regintel.changes.models import ChangeReport
from regintel.changes.report import compare_texts
from regintel.container import Container
from regintel.domain.documents import DocStatus, Document, titled
from regintel.errors import InvalidRequest
from regintel.obligations.review_state import policy_text

router = APIRouter(prefix="/api", tags=["documents"])
_PROBLEMS: dict[int | str, dict[str, object]] = {
    400: {"description": "A version not ready yet, or the same document twice"},
    401: {"description": "Not signed in"},
    404: {"description": "No such document in this organisation"},
}


async def _text(container: Container, tenant_id: UUID, document: Document) -> str:
    if document.status is not DocStatus.READY:
        raise InvalidRequest(f"\"{document.title}\" is not ready yet ({document.status.value})",
                             hint="wait until both versions are ingested")
    return policy_text(await container.chunk_index.document_chunks(tenant_id, document.id))


@router.get("/documents/{document_id}/changes", response_model=ChangeReport,
            operation_id="document_changes", responses=_PROBLEMS)
async def document_changes(
        document_id: UUID, principal: PrincipalDep, container: ContainerDep,
        earlier: Annotated[UUID, Query(alias="from", description="The earlier version.")],
) -> ChangeReport:
    """Each change from the version ``from`` to this document: its kind (inserted, deleted,
    amended, renumbered, moved, split, merged), substantive or editorial, a word-level
    redline, a typed summary and both quotes verbatim, with a table of contents."""
    if earlier == document_id:
        raise InvalidRequest("a document compared with itself has no changes",
                             hint="give the earlier version's id in 'from'")
    tenant = principal.tenant_id
    new = await container.documents.get(tenant, document_id)
    old = await container.documents.get(tenant, earlier)
    old_text, new_text = await _text(container, tenant, old), await _text(container, tenant, new)
    return await asyncio.to_thread(compare_texts, old_text, new_text,
                                   titled(old.title, old.version), titled(new.title, new.version))
