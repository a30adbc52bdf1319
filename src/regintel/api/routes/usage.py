"""Tokens and cost for the whole organisation, and per conversation."""

from __future__ import annotations

from fastapi import APIRouter

from regintel.api.deps import ContainerDep, PrincipalDep
from regintel.api.permissions import is_admin
from regintel.api.schemas.conversations import TenantUsagePublic
from regintel.api.usage import tenant_usage

router = APIRouter(prefix="/api", tags=["usage"])


@router.get("/usage", response_model=TenantUsagePublic, operation_id="read_usage",
            responses={401: {"description": "Not signed in"}})
async def read_usage(principal: PrincipalDep, container: ContainerDep) -> TenantUsagePublic:
    """The organisation's totals and the most recent conversations' totals: a member's own
    conversations only; every member's for owners and admins, who answer for the bill (they
    see ids and totals, not the conversations, which stay personal)."""
    return await tenant_usage(container.database, principal.tenant_id,
                              user_id=None if is_admin(principal) else principal.user_id)
