"""Members of the organisation and invitations into it."""

from __future__ import annotations

from datetime import timedelta
from uuid import UUID

from fastapi import APIRouter, Response, status

from regintel.api.accounts.store import require_role
from regintel.api.deps import AccountsDep, AdminDep, PrincipalDep, SettingsDep
from regintel.api.routes.auth import start_session
from regintel.api.schemas.auth import (
    AuthPublic,
    InvitationAccept,
    InvitationCreate,
    InvitationCreated,
    InvitationsPublic,
    MembersPublic,
)

router = APIRouter(prefix="/api", tags=["members"])
_PROBLEMS: dict[int | str, dict[str, object]] = {
    401: {"description": "Not signed in"},
    403: {"description": "Needs the owner or admin role"},
    404: {"description": "No such invitation in this organisation"},
}


@router.get("/members", response_model=MembersPublic, operation_id="list_members",
            responses=_PROBLEMS)
async def list_members(principal: PrincipalDep, accounts: AccountsDep) -> MembersPublic:
    members = await accounts.members(principal.tenant_id)
    return MembersPublic(data=members, count=len(members))


@router.post("/invitations", response_model=InvitationCreated,
             status_code=status.HTTP_201_CREATED, operation_id="create_invitation",
             responses={**_PROBLEMS, 409: {"description": "Already a member"}})
async def create_invitation(body: InvitationCreate, principal: AdminDep,
                            accounts: AccountsDep, settings: SettingsDep) -> InvitationCreated:
    """Invite someone by e-mail; the token is returned once, to be passed on to them."""
    if body.role == "admin":
        require_role(principal, "owner")  # admins cannot mint more admins
    return await accounts.invite(principal, body.email, body.role,
                                 timedelta(days=settings.api.invitation_ttl_days))


@router.get("/invitations", response_model=InvitationsPublic, operation_id="list_invitations",
            responses=_PROBLEMS)
async def list_invitations(principal: AdminDep, accounts: AccountsDep) -> InvitationsPublic:
    invitations = await accounts.invitations(principal.tenant_id)
    return InvitationsPublic(data=invitations, count=len(invitations))


@router.delete("/invitations/{invitation_id}", status_code=status.HTTP_204_NO_CONTENT,
               operation_id="revoke_invitation", responses=_PROBLEMS)
async def revoke_invitation(invitation_id: UUID, principal: AdminDep,
                            accounts: AccountsDep) -> None:
    await accounts.revoke(principal.tenant_id, invitation_id)


@router.post("/invitations/accept", response_model=AuthPublic, operation_id="accept_invitation",
             responses={401: {"description": "Existing account, wrong password"},
                        404: {"description": "Unknown, used or expired invitation"}})
async def accept_invitation(body: InvitationAccept, response: Response, accounts: AccountsDep,
                            settings: SettingsDep) -> AuthPublic:
    """Join the inviting organisation (signing up, or with an existing account's password)
    and start a session in it."""
    user_id, tenant_id = await accounts.accept(body.token, password=body.password,
                                               display_name=body.display_name)
    return await start_session(response, accounts, settings, user_id=user_id,
                               tenant_id=tenant_id, kind=body.session)
