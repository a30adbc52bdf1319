"""A document's obligation register (issue 36): every obligation with its rule number, list
items, conditions, actor and typed facts. Built on first request for documents ingested
before registers existed."""

from __future__ import annotations

from uuid import UUID

from fastapi import APIRouter

from regintel.api.deps import ContainerDep, PrincipalDep
from regintel.api.schemas.obligations import ObligationsPublic

router = APIRouter(prefix="/api", tags=["obligations"])


@router.get("/documents/{document_id}/obligations", response_model=ObligationsPublic,
            operation_id="list_document_obligations",
            responses={401: {"description": "Not signed in"},
                       404: {"description": "No such document in this organisation"},
                       400: {"description": "The document is not ready yet"}})
async def list_obligations(document_id: UUID, principal: PrincipalDep,
                           container: ContainerDep) -> ObligationsPublic:
    """The document's obligations in document order."""
    rows = await container.registers.get(principal.tenant_id, document_id)
    return ObligationsPublic(data=rows, count=len(rows))
