"""Typed dependencies: routes ask for what they need with these aliases.

Who is calling comes only from the session (cookie) or the bearer token; the tenant is the
session's, never a value of the request."""

from __future__ import annotations

import asyncio
import gc
import logging
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import APIKeyCookie, HTTPAuthorizationCredentials, HTTPBearer

from regintel.api.accounts.store import AccountStore, Principal, require_role
from regintel.api.accounts.tokens import csrf_for, same
from regintel.api.errors import AuthenticationRequired, CsrfRejected
from regintel.api.ratelimit import RateLimiter
from regintel.chat.service import ChatService
from regintel.container import Container
from regintel.settings import Settings

SESSION_COOKIE = "regintel_session"
CSRF_COOKIE = "regintel_csrf"
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
log = logging.getLogger(__name__)

_bearer = HTTPBearer(auto_error=False, description="A token from login with "
                     "`session: bearer` (API clients).")
_cookie = APIKeyCookie(name=SESSION_COOKIE, auto_error=False,
                       description="Browser session; unsafe methods also need the "
                       f"`{CSRF_HEADER}` header.")


class ChatGate:
    """The chat service, built once even when the first requests arrive together (building it
    opens a pool and loads the guardrail models; ``Container.chat`` alone would do that once
    per concurrent caller)."""

    def __init__(self, container: Container) -> None:
        self._container = container
        self._lock = asyncio.Lock()

    async def get(self) -> ChatService:
        async with self._lock:
            return await self._container.chat()

    async def warm_up(self) -> None:
        try:
            await self.get()
        except Exception:  # the first chat request will meet (and report) the same error
            log.exception("the chat service could not be prepared at start-up")
            return
        # The models and their ~200k start-up objects are here for good: moving them out of
        # the collector's reach keeps a full collection from landing on a request (measured
        # by `regintel bench ontology`: p95 110 ms frozen vs 262 ms not, at 2,000 entities).
        gc.freeze()


def get_container(request: Request) -> Container:
    container: Container = request.app.state.container
    return container


def get_accounts(request: Request) -> AccountStore:
    accounts: AccountStore = request.app.state.accounts
    return accounts


async def get_chat(request: Request) -> ChatService:
    gate: ChatGate = request.app.state.chat_gate
    return await gate.get()


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_limiter(request: Request) -> RateLimiter:
    limiter: RateLimiter = request.app.state.limiter
    return limiter


ContainerDep = Annotated[Container, Depends(get_container)]
AccountsDep = Annotated[AccountStore, Depends(get_accounts)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
ChatDep = Annotated[ChatService, Depends(get_chat)]
LimiterDep = Annotated[RateLimiter, Depends(get_limiter)]


async def current_principal(
    request: Request, accounts: AccountsDep,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    cookie: Annotated[str | None, Depends(_cookie)],
) -> Principal:
    if bearer is not None:
        token, via = bearer.credentials, "bearer"
    elif cookie:
        token, via = cookie, "cookie"
    else:
        raise AuthenticationRequired("sign in first",
                                     hint="log in, or send an Authorization: Bearer token")
    principal = await accounts.resolve(token)
    # Each kind of token works only the way it was issued: a cookie session is always
    # subject to the CSRF check below, whatever header it arrives in.
    if principal is None or principal.kind != via:
        raise AuthenticationRequired("the session has expired or was ended",
                                     hint="log in again")
    if via == "cookie" and request.method not in SAFE_METHODS:
        sent = request.headers.get(CSRF_HEADER, "")
        if not sent or not same(sent, csrf_for(token)):
            raise CsrfRejected("the request lacks a valid CSRF token",
                               hint=f"send the value of the {CSRF_COOKIE} cookie in the "
                               f"{CSRF_HEADER} header")
    return principal


PrincipalDep = Annotated[Principal, Depends(current_principal)]


async def tenant_admin(principal: PrincipalDep) -> Principal:
    require_role(principal, "owner", "admin")
    return principal


AdminDep = Annotated[Principal, Depends(tenant_admin)]


async def chat_quota(principal: PrincipalDep, limiter: LimiterDep,
                     container: ContainerDep) -> None:
    await limiter.take(container.database, "chat", principal.user_id)


async def upload_quota(principal: PrincipalDep, limiter: LimiterDep,
                       container: ContainerDep) -> None:
    await limiter.take(container.database, "upload", principal.user_id)
