"""Accounts in Postgres.

Three kinds of access, each as narrow as it can be:
- sign-up, login and accepting an invitation must find a user by e-mail across tenants, so they
  use the system session (as ``database.py`` intends for auth look-ups);
- resolving a session or an invitation token runs as the non-privileged application role with
  only the token's hash set (``regintel.token_hash``): RLS shows that one row and nothing else
  (migration 0007);
- everything after that runs in a tenant session, like every other repository.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, cast
from uuid import UUID

from sqlalchemy import delete, func, insert, select, text, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from regintel.adapters.postgres import tables as t
from regintel.adapters.postgres.database import APP_ROLE, Database
from regintel.api.accounts.passwords import hash_password, verify_password
from regintel.api.accounts.tokens import new_token, token_hash
from regintel.api.errors import AuthenticationRequired, Conflict, PermissionDenied
from regintel.api.password_policy import WeakPassword, weakness
from regintel.api.schemas.auth import (
    InvitationCreated,
    InvitationPublic,
    MemberPublic,
    MePublic,
    ProfilePublic,
    ProfileUpdate,
    Role,
)
from regintel.errors import NotFound

SessionKindT = Literal["cookie", "bearer"]
_BAD_LOGIN = "the e-mail or password is wrong"


@dataclass(frozen=True)
class Principal:
    """Who is calling, for which tenant, and how they proved it."""

    user_id: UUID
    tenant_id: UUID
    role: Role
    kind: SessionKindT
    token_hash: str


@dataclass(frozen=True)
class OpenedSession:
    token: str
    expires_at: datetime


def _now() -> datetime:
    return datetime.now(UTC)


async def _capability(session: AsyncSession, hashed: str) -> None:
    """Drop to the application role and present the token hash as the only key (RLS)."""
    await session.execute(text(f"SET LOCAL ROLE {APP_ROLE}"))
    await session.execute(text("SELECT set_config('regintel.token_hash', :h, true)"),
                          {"h": hashed})


async def _bind_tenant(session: AsyncSession, tenant_id: UUID) -> None:
    await session.execute(text("SELECT set_config('regintel.tenant_id', :t, true)"),
                          {"t": str(tenant_id)})
    # The token is no longer needed once the tenant is known: forget it for the rest.
    await session.execute(text("SELECT set_config('regintel.token_hash', '', true)"))


class AccountStore:
    def __init__(self, database: Database) -> None:
        self._db = database

    # -- identities ------------------------------------------------------------------------
    async def sign_up(self, *, email: str, password: str, display_name: str,
                      organisation: str) -> bool:
        """A new user owning a new tenant; True if created, False if the e-mail already has an
        account (then nothing changes). The caller must not tell the two apart: the password
        is hashed first either way, so both cost the same Argon2 time."""
        password_hash = await hash_password(password)
        user_id, tenant_id = uuid.uuid4(), uuid.uuid4()
        name = organisation or email.split("@", 1)[1]
        try:
            async with self._db.system_session() as s:
                if await self._has_account(s, email):
                    return False
                await s.execute(insert(t.tenants).values(
                    id=tenant_id, name=name, slug=f"t-{tenant_id.hex[:16]}"))
                await s.execute(insert(t.users).values(
                    id=user_id, email=email, password_hash=password_hash,
                    display_name=display_name, last_login_at=func.now()))
                await s.execute(insert(t.memberships).values(
                    tenant_id=tenant_id, user_id=user_id, role="owner"))
                await s.execute(insert(t.user_profiles).values(
                    tenant_id=tenant_id, user_id=user_id))
        except IntegrityError:  # a concurrent sign-up won the unique e-mail index
            return False
        return True

    async def ensure_demo_user(self, tenant_id: UUID, *, email: str, password: str,
                               profile: dict[str, str]) -> UUID:
        """The demo's owner of an existing tenant, onboarded, with ``password`` (reset on
        every start, so the login printed by ``regintel demo`` always works)."""
        password_hash = await hash_password(password)
        async with self._db.system_session() as s:
            found = (await s.execute(select(t.users.c.id).where(t.users.c.email == email)))
            user_id = found.scalar_one_or_none()
            if user_id is None:
                user_id = uuid.uuid4()
                await s.execute(insert(t.users).values(
                    id=user_id, email=email, password_hash=password_hash,
                    display_name="Demo Compliance Officer"))
            else:
                await s.execute(update(t.users).where(t.users.c.id == user_id)
                                .values(password_hash=password_hash))
            await s.execute(pg_insert(t.memberships).values(
                tenant_id=tenant_id, user_id=user_id, role="owner").on_conflict_do_nothing())
            await s.execute(pg_insert(t.user_profiles).values(
                tenant_id=tenant_id, user_id=user_id, completed_at=func.now(), **profile
            ).on_conflict_do_nothing())
        return UUID(str(user_id))

    async def authenticate(self, email: str, password: str) -> tuple[UUID, UUID]:
        """(user id, tenant id) for good credentials. A user in several tenants signs in to
        the one they joined first."""
        async with self._db.system_session() as s:
            user = (await s.execute(select(t.users.c.id, t.users.c.password_hash).where(
                func.lower(t.users.c.email) == email.lower()))).first()
        if not await verify_password(user[1] if user else None, password) or user is None:
            raise AuthenticationRequired(_BAD_LOGIN)
        async with self._db.system_session() as s:
            tenant = (await s.execute(select(t.memberships.c.tenant_id).where(
                t.memberships.c.user_id == user[0]).order_by(
                t.memberships.c.created_at).limit(1))).scalar_one_or_none()
            await s.execute(update(t.users).where(t.users.c.id == user[0]).values(
                last_login_at=func.now()))
        if tenant is None:
            raise AuthenticationRequired(_BAD_LOGIN)
        return UUID(str(user[0])), UUID(str(tenant))

    # -- sessions --------------------------------------------------------------------------
    async def open_session(self, tenant_id: UUID, user_id: UUID, kind: SessionKindT,
                           ttl: timedelta) -> OpenedSession:
        token = new_token()
        expires = _now() + ttl
        async with self._db.tenant_session(tenant_id) as s:
            # Housekeeping on the way in: this user's expired sessions go.
            await s.execute(delete(t.auth_sessions).where(
                t.auth_sessions.c.tenant_id == tenant_id,
                t.auth_sessions.c.user_id == user_id,
                t.auth_sessions.c.expires_at <= func.now()))
            await s.execute(insert(t.auth_sessions).values(
                token_hash=token_hash(token), tenant_id=tenant_id, user_id=user_id, kind=kind,
                expires_at=expires))
        return OpenedSession(token, expires)

    async def resolve(self, token: str) -> Principal | None:
        """The live session of ``token`` with the member's current role, or None."""
        hashed = token_hash(token)
        sessions, members = t.auth_sessions, t.memberships
        async with self._db.system_session() as s:
            await _capability(s, hashed)
            row = (await s.execute(select(sessions.c.tenant_id, sessions.c.user_id,
                                          sessions.c.kind).where(
                sessions.c.token_hash == hashed,
                sessions.c.expires_at > func.now()))).first()
            if row is None:
                return None
            await _bind_tenant(s, row[0])
            role = (await s.execute(select(members.c.role).where(
                members.c.tenant_id == row[0],
                members.c.user_id == row[1]))).scalar_one_or_none()
        if role is None:
            return None
        return Principal(user_id=row[1], tenant_id=row[0], role=cast(Role, role),
                         kind=cast(SessionKindT, row[2]), token_hash=hashed)

    async def close_session(self, principal: Principal) -> None:
        async with self._db.tenant_session(principal.tenant_id) as s:
            await s.execute(delete(t.auth_sessions).where(
                t.auth_sessions.c.tenant_id == principal.tenant_id,
                t.auth_sessions.c.token_hash == principal.token_hash))

    # -- the current user and onboarding ---------------------------------------------------
    async def me(self, principal: Principal) -> MePublic:
        tenant_id, user_id = principal.tenant_id, principal.user_id
        p = t.user_profiles
        async with self._db.tenant_session(tenant_id) as s:
            user = (await s.execute(select(t.users.c.email, t.users.c.display_name).where(
                t.users.c.id == user_id))).one()
            tenant_name = (await s.execute(select(t.tenants.c.name).where(
                t.tenants.c.id == tenant_id))).scalar_one()
            row = (await s.execute(select(p.c.company, p.c.country, p.c.industry,
                                          p.c.description, p.c.completed_at).where(
                p.c.tenant_id == tenant_id, p.c.user_id == user_id))).mappings().first()
        profile = ProfilePublic.model_validate(dict(row)) if row else ProfilePublic()
        return MePublic(user_id=user_id, email=user[0], display_name=user[1],
                        tenant_id=tenant_id, tenant_name=tenant_name, role=principal.role,
                        onboarding_complete=profile.completed_at is not None, profile=profile)

    async def save_profile(self, principal: Principal, update_: ProfileUpdate) -> None:
        """Onboarding is complete once company, country and industry are filled in (the
        description is optional)."""
        values: dict[str, Any] = update_.model_dump()
        done = all(values[k] for k in ("company", "country", "industry"))
        values["completed_at"] = func.now() if done else None
        statement = pg_insert(t.user_profiles).values(
            tenant_id=principal.tenant_id, user_id=principal.user_id, **values)
        statement = statement.on_conflict_do_update(
            index_elements=["tenant_id", "user_id"],
            set_={**values, "updated_at": func.now()})
        async with self._db.tenant_session(principal.tenant_id) as s:
            await s.execute(statement)

    async def members(self, tenant_id: UUID) -> list[MemberPublic]:
        m, u = t.memberships, t.users
        async with self._db.tenant_session(tenant_id) as s:
            rows = (await s.execute(select(
                m.c.user_id, u.c.email, u.c.display_name, m.c.role,
                m.c.created_at.label("joined_at")).select_from(
                m.join(u, u.c.id == m.c.user_id)).where(m.c.tenant_id == tenant_id)
                .order_by(m.c.created_at))).mappings().all()
        return [MemberPublic.model_validate(dict(r)) for r in rows]

    # -- invitations -----------------------------------------------------------------------
    async def invite(self, principal: Principal, email: str, role: str,
                     ttl: timedelta) -> InvitationCreated:
        token = new_token()
        inv = t.invitations
        async with self._db.tenant_session(principal.tenant_id) as s:
            member = (await s.execute(select(func.count()).select_from(
                t.memberships.join(t.users, t.users.c.id == t.memberships.c.user_id)).where(
                t.memberships.c.tenant_id == principal.tenant_id,
                func.lower(t.users.c.email) == email.lower()))).scalar_one()
            if member:
                raise Conflict(f"{email} is already a member of this organisation")
            row = (await s.execute(insert(inv).values(
                tenant_id=principal.tenant_id, email=email, role=role,
                token_hash=token_hash(token), invited_by=principal.user_id,
                expires_at=_now() + ttl).returning(
                inv.c.id, inv.c.email, inv.c.role, inv.c.created_at, inv.c.expires_at,
                inv.c.accepted_at))).mappings().one()
        return InvitationCreated(**dict(row), token=token)

    async def invitations(self, tenant_id: UUID) -> list[InvitationPublic]:
        inv = t.invitations
        async with self._db.tenant_session(tenant_id) as s:
            rows = (await s.execute(select(
                inv.c.id, inv.c.email, inv.c.role, inv.c.created_at, inv.c.expires_at,
                inv.c.accepted_at).where(inv.c.tenant_id == tenant_id)
                .order_by(inv.c.created_at.desc()))).mappings().all()
        return [InvitationPublic.model_validate(dict(r)) for r in rows]

    async def revoke(self, tenant_id: UUID, invitation_id: UUID) -> None:
        async with self._db.tenant_session(tenant_id) as s:
            done = await s.execute(delete(t.invitations).where(
                t.invitations.c.tenant_id == tenant_id, t.invitations.c.id == invitation_id,
                t.invitations.c.accepted_at.is_(None)))
        if done.rowcount == 0:  # type: ignore[attr-defined]
            raise NotFound(f"no pending invitation {invitation_id}")

    async def accept(self, token: str, *, password: str,
                     display_name: str) -> tuple[UUID, UUID]:
        """Join the inviting tenant: a new account for a new e-mail; an existing account
        must prove it is theirs with its password. Returns (user id, tenant id)."""
        hashed, inv = token_hash(token), t.invitations
        async with self._db.system_session() as s:
            await _capability(s, hashed)
            found = (await s.execute(select(inv.c.id, inv.c.tenant_id, inv.c.email, inv.c.role)
                                     .where(inv.c.token_hash == hashed,
                                            inv.c.accepted_at.is_(None),
                                            inv.c.expires_at > func.now()))).first()
        if found is None:
            raise NotFound("this invitation does not exist, was used, or has expired",
                           hint="ask for a new invitation")
        invitation_id, tenant_id, email, role = found
        async with self._db.system_session() as s:
            user = (await s.execute(select(t.users.c.id, t.users.c.password_hash).where(
                func.lower(t.users.c.email) == email.lower()))).first()
        if user is not None:
            if not await verify_password(user[1], password):
                raise AuthenticationRequired(
                    "an account with this e-mail exists; enter its password to join")
            user_id = UUID(str(user[0]))
        else:
            if (why := weakness(password, [email, display_name])) is not None:
                raise WeakPassword(why, hint="choose a longer, less common password")
            user_id = uuid.uuid4()
            new_hash = await hash_password(password)
            try:
                async with self._db.system_session() as s:
                    await s.execute(insert(t.users).values(
                        id=user_id, email=email, password_hash=new_hash,
                        display_name=display_name))
            except IntegrityError as exc:
                raise _email_taken() from exc
        async with self._db.tenant_session(tenant_id) as s:
            claimed = await s.execute(update(inv).where(
                inv.c.id == invitation_id, inv.c.accepted_at.is_(None)).values(
                accepted_at=func.now()))
            if claimed.rowcount == 0:  # type: ignore[attr-defined]
                raise NotFound("this invitation was just used", hint="ask for a new one")
            await s.execute(pg_insert(t.memberships).values(
                tenant_id=tenant_id, user_id=user_id, role=role).on_conflict_do_nothing())
            await s.execute(pg_insert(t.user_profiles).values(
                tenant_id=tenant_id, user_id=user_id).on_conflict_do_nothing())
        return user_id, UUID(str(tenant_id))

    @staticmethod
    async def _has_account(s: AsyncSession, email: str) -> bool:
        taken = (await s.execute(select(t.users.c.id).where(
            func.lower(t.users.c.email) == email.lower()))).first()
        return taken is not None


def _email_taken() -> Conflict:
    return Conflict("an account with this e-mail already exists",
                    hint="sign in instead, or ask your organisation's owner for an invitation")


def require_role(principal: Principal, *roles: Role) -> None:
    if principal.role not in roles:
        raise PermissionDenied(f"this needs the {' or '.join(roles)} role",
                               hint="ask your organisation's owner")

