"""Accounts: sign-up, login, the current user, onboarding profile, members, invitations."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal
from uuid import UUID

from pydantic import BaseModel, Field, StringConstraints, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from regintel.api.password_policy import weakness
from regintel.api.schemas.common import RequestBody

# \x85 and \ufeff spelled out: the schema's \s (ECMA-262) and pydantic's disagree on them.
Email = Annotated[str, StringConstraints(strip_whitespace=True, to_lower=True, max_length=254,
                                         pattern=r"^[^@\s\x00\x85\ufeff]+@[^@\s\x00\x85\ufeff]+"
                                         r"\.[^@\s\x00\x85\ufeff]+$")]
Password = Annotated[str, Field(min_length=8, max_length=256)]
SessionKind = Literal["cookie", "bearer"]
Role = Literal["owner", "admin", "member"]
InviteRole = Literal["admin", "member"]
ShortText = Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]

_SESSION_DOC = ("`cookie` (browsers): an HTTP-only session cookie plus a CSRF token to echo in "
                "`X-CSRF-Token`; `bearer` (API clients): a token returned once in the body.")


class SignUpCreate(RequestBody):
    email: Email
    display_name: ShortText = ""
    organisation: ShortText = Field("", description="The new tenant's name (defaults to the "
                                    "e-mail's domain).")
    # Last, so the validator below sees the other fields (a password made of them is weak).
    password: Password = Field(description="At least 8 characters and hard to guess "
                               "(zxcvbn score 3 of 4); the refusal says why.")

    @field_validator("password")
    @classmethod
    def _strong(cls, value: str, info: ValidationInfo) -> str:
        others = [str(info.data.get(k) or "") for k in ("email", "display_name", "organisation")]
        if (why := weakness(value, others)) is not None:
            raise PydanticCustomError("weak_password", why)
        return value


class SignUpAccepted(BaseModel):
    """The same answer whether the e-mail was new or already had an account (no session is
    opened either way), so sign-up cannot be used to find out who has an account."""

    message: str


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
    web_search: bool = Field(False, description="Whether web search is configured (the UI "
                             "offers it only then).")


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
