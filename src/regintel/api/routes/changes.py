"""What changed between two versions of a document in the library (issue 48): the change
report of changes/, prepared when the later version was ingested (changes/versions.py) or
made now from the two documents' stored text. Both must be the caller's organisation's and
ready."""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Query

from regintel.api.deps import ContainerDep, PrincipalDep
from regintel.changes.models import ChangeReport

router = APIRouter(prefix="/api", tags=["documents"])
_PROBLEMS: dict[int | str, dict[str, object]] = {
    400: {"description": "A version not ready yet, or the same document twice"},
    401: {"description": "Not signed in"},
    404: {"description": "No such document in this organisation"},
}


@router.get("/documents/{document_id}/changes", response_model=ChangeReport,
            operation_id="document_changes", responses=_PROBLEMS)
async def document_changes(
        document_id: UUID, principal: PrincipalDep, container: ContainerDep,
        earlier: Annotated[UUID, Query(alias="from", description="The earlier version.")],
) -> ChangeReport:
    """Each change from the version ``from`` to this document: its kind (inserted, deleted,
    amended, renumbered, moved, split, merged), substantive or editorial, a word-level
    redline, a typed summary and both quotes verbatim, with a table of contents."""
    return await container.version_changes.report(principal.tenant_id, earlier, document_id)
