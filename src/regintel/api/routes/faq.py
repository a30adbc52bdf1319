"""FAQ entries: every member reads them, owners and admins write them. An edit is a delete
and a create (the entry's question embedding must be recomputed anyway)."""

from __future__ import annotations

from uuid import UUID

from fastapi import APIRouter, status

from regintel.api.deps import AdminDep, ContainerDep, PrincipalDep
from regintel.api.schemas.faq import FaqCreate, FaqPublic, FaqsPublic
from regintel.errors import NotFound

router = APIRouter(prefix="/api", tags=["faq"])
_PROBLEMS: dict[int | str, dict[str, object]] = {
    401: {"description": "Not signed in"},
    403: {"description": "Needs the owner or admin role"},
    404: {"description": "No such FAQ entry in this organisation"},
}


@router.get("/faq", response_model=FaqsPublic, operation_id="list_faq", responses=_PROBLEMS)
async def list_faq(principal: PrincipalDep, container: ContainerDep) -> FaqsPublic:
    entries = await container.faq.entries(principal.tenant_id)
    return FaqsPublic(data=[FaqPublic.model_validate(e.model_dump()) for e in entries],
                      count=len(entries))


@router.post("/faq", response_model=FaqPublic, status_code=status.HTTP_201_CREATED,
             operation_id="create_faq", responses=_PROBLEMS)
async def create_faq(body: FaqCreate, principal: AdminDep, container: ContainerDep) -> FaqPublic:
    entry = await container.faq.add(principal.tenant_id, body.question, body.answer)
    return FaqPublic.model_validate(entry.model_dump())


@router.get("/faq/{entry_id}", response_model=FaqPublic, operation_id="read_faq",
            responses=_PROBLEMS)
async def read_faq(entry_id: UUID, principal: PrincipalDep, container: ContainerDep) -> FaqPublic:
    for entry in await container.faq.entries(principal.tenant_id):
        if entry.id == entry_id:
            return FaqPublic.model_validate(entry.model_dump())
    raise NotFound(f"no FAQ entry {entry_id}")


@router.put("/faq/{entry_id}", response_model=FaqPublic, operation_id="replace_faq",
            responses=_PROBLEMS)
async def replace_faq(entry_id: UUID, body: FaqCreate, principal: AdminDep,
                      container: ContainerDep) -> FaqPublic:
    """Replace an entry; the result has a new id."""
    await container.faq.remove(principal.tenant_id, entry_id)
    entry = await container.faq.add(principal.tenant_id, body.question, body.answer)
    return FaqPublic.model_validate(entry.model_dump())


@router.delete("/faq/{entry_id}", status_code=status.HTTP_204_NO_CONTENT,
               operation_id="delete_faq", responses=_PROBLEMS)
async def delete_faq(entry_id: UUID, principal: AdminDep, container: ContainerDep) -> None:
    await container.faq.remove(principal.tenant_id, entry_id)
