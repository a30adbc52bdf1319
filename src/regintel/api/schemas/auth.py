"""Accounts: sign-up, login, the current user, onboarding profile, members, invitations."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal
from uuid import UUID

from pydantic import BaseModel, Field, StringConstraints

from regintel.api.schemas.common import RequestBody

Email = Annotated[str, StringConstraints(strip_whitespace=True, to_lower=True, max_length=254,
                                         pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$")]
Password = Annotated[str, Field(min_length=8, max_length=256)]
SessionKind = Literal["cookie", "bearer"]
Role = Literal["owner", "admin", "member"]
InviteRole = Literal["admin", "member"]
ShortText = Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]

_SESSION_DOC = ("`cookie` (browsers): an HTTP-only session cookie plus a CSRF token to echo in "
                "`X-CSRF-Token`; `bearer` (API clients): a token returned once in the body.")


class SignUpCreate(RequestBody):
    email: Email
    password: Password
    display_name: ShortText = ""
    organisation: ShortText = Field("", description="The new tenant's name (defaults to the "
                                    "e-mail's domain).")
    session: SessionKind = Field("cookie", description=_SESSION_DOC)


class LoginCreate(RequestBody):
    email: Email
    password: Annotated[str, Field(min_length=1, max_length=256)]
    session: SessionKind = Field("cookie", description=_SESSION_DOC)


class AuthPublic(BaseModel):
    user_id: UUID
    tenant_id: UUID
    role: Role
    expires_at: datetime
    csrf_token: str | None = Field(None, description="Cookie sessions: send it back in the "
                                   "`X-CSRF-Token` header on POST/PUT/PATCH/DELETE.")
    access_token: str | None = Field(None, description="Bearer sessions only; shown once.")
    token_type: Literal["bearer"] | None = None


class ProfileUpdate(RequestBody):
    company: ShortText
    country: ShortText
    industry: ShortText
    description: Annotated[str, StringConstraints(strip_whitespace=True, max_length=2000)] = ""


class ProfilePublic(BaseModel):
    company: str = ""
    country: str = ""
    industry: str = ""
    description: str = ""
    completed_at: datetime | None = None


class MePublic(BaseModel):
    user_id: UUID
    email: str
    display_name: str
    tenant_id: UUID
    tenant_name: str
    role: Role
    onboarding_complete: bool = Field(description="The UI shows the dashboard only when true.")
    profile: ProfilePublic
    csrf_token: str | None = None


class MemberPublic(BaseModel):
    user_id: UUID
    email: str
    display_name: str
    role: Role
    joined_at: datetime


class MembersPublic(BaseModel):
    data: list[MemberPublic]
    count: int


class InvitationCreate(RequestBody):
    email: Email
    role: InviteRole = "member"


class InvitationPublic(BaseModel):
    id: UUID
    email: str
    role: InviteRole
    created_at: datetime
    expires_at: datetime
    accepted_at: datetime | None = None


class InvitationCreated(InvitationPublic):
    token: str = Field(description="Give it to the invitee; shown only once.")


class InvitationsPublic(BaseModel):
    data: list[InvitationPublic]
    count: int


class InvitationAccept(RequestBody):
    token: Annotated[str, Field(min_length=16, max_length=200)]
    password: Password
    display_name: ShortText = ""
    session: SessionKind = Field("cookie", description=_SESSION_DOC)
