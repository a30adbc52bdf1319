"""Sign-up, login, logout, and the current user with the onboarding profile."""

from __future__ import annotations

from datetime import timedelta
from uuid import UUID

from fastapi import APIRouter, Request, Response, status

from regintel.api.accounts.store import AccountStore, Principal
from regintel.api.accounts.throttle import AuthThrottle, client_address
from regintel.api.accounts.tokens import csrf_for
from regintel.api.deps import (
    CSRF_COOKIE,
    SESSION_COOKIE,
    AccountsDep,
    ContainerDep,
    PrincipalDep,
    SettingsDep,
)
from regintel.api.schemas.auth import (
    AuthPublic,
    LoginCreate,
    MePublic,
    ProfileUpdate,
    SessionKind,
    SignUpAccepted,
    SignUpCreate,
)
from regintel.settings import Settings

router = APIRouter(prefix="/api", tags=["auth"])
_PROBLEMS: dict[int | str, dict[str, object]] = {
    401: {"description": "Not signed in, or wrong credentials"},
}
_THROTTLED: dict[int | str, dict[str, object]] = {
    **_PROBLEMS,
    429: {"description": "Too many attempts: wait for the Retry-After seconds"},
}
SIGNUP_ACCEPTED = ("If this e-mail was new, its account is ready: sign in with it and this "
                   "password. If it already had an account, sign in with that account's password.")


async def start_session(response: Response, accounts: AccountStore, settings: Settings, *,
                        user_id: UUID, tenant_id: UUID, kind: SessionKind) -> AuthPublic:
    """Open a session and hand it over: as cookies for a browser, in the body for a client."""
    api = settings.api
    ttl = timedelta(hours=api.session_ttl_hours) if kind == "cookie" \
        else timedelta(days=api.bearer_ttl_days)
    opened = await accounts.open_session(tenant_id, user_id, kind, ttl)
    principal = await accounts.resolve(opened.token)
    assert principal is not None  # just created
    body = AuthPublic(user_id=user_id, tenant_id=tenant_id, role=principal.role,
                      expires_at=opened.expires_at)
    if kind == "bearer":
        return body.model_copy(update={"access_token": opened.token, "token_type": "bearer"})
    csrf = csrf_for(opened.token)
    max_age = int(ttl.total_seconds())
    response.set_cookie(SESSION_COOKIE, opened.token, max_age=max_age, httponly=True,
                        samesite="lax", secure=api.cookie_secure, path="/")
    # Readable by the page on purpose: it echoes it in the X-CSRF-Token header.
    response.set_cookie(CSRF_COOKIE, csrf, max_age=max_age, httponly=False, samesite="lax",
                        secure=api.cookie_secure, path="/")
    return body.model_copy(update={"csrf_token": csrf})


@router.post("/auth/signup", response_model=SignUpAccepted,
             status_code=status.HTTP_202_ACCEPTED, operation_id="sign_up",
             responses=_THROTTLED)
async def sign_up(body: SignUpCreate, request: Request, accounts: AccountsDep,
                  container: ContainerDep, settings: SettingsDep) -> SignUpAccepted:
    """Create an account and its organisation (tenant), owned by the new user, then sign in
    with ``log_in``. The answer is the same whether or not the e-mail already had an account
    (which is left unchanged), so sign-up cannot reveal who has one."""
    throttle = AuthThrottle(container.database, settings)
    await throttle.admit_signup(body.email, client_address(request, settings.api))
    await accounts.sign_up(email=body.email, password=body.password,
                           display_name=body.display_name, organisation=body.organisation)
    return SignUpAccepted(message=SIGNUP_ACCEPTED)


@router.post("/auth/login", response_model=AuthPublic, operation_id="log_in",
             responses=_THROTTLED)
async def log_in(body: LoginCreate, request: Request, response: Response,
                 accounts: AccountsDep, container: ContainerDep,
                 settings: SettingsDep) -> AuthPublic:
    """Sign in. Failed attempts are limited per account and per client address (429 with
    Retry-After, doubling on repeats); the limit is checked before the password is."""
    throttle = AuthThrottle(container.database, settings)
    address = client_address(request, settings.api)
    await throttle.admit_login(body.email, address)
    user_id, tenant_id = await accounts.authenticate(body.email, body.password)
    await throttle.login_succeeded(body.email, address)
    return await start_session(response, accounts, settings, user_id=user_id,
                               tenant_id=tenant_id, kind=body.session)


@router.post("/auth/logout", status_code=status.HTTP_204_NO_CONTENT, operation_id="log_out",
             responses=_PROBLEMS)
async def log_out(principal: PrincipalDep, response: Response, accounts: AccountsDep) -> None:
    """End this session (a bearer token is revoked the same way)."""
    await accounts.close_session(principal)
    response.delete_cookie(SESSION_COOKIE, path="/")
    response.delete_cookie(CSRF_COOKIE, path="/")


def _with_csrf(me: MePublic, principal: Principal, token: str | None) -> MePublic:
    if principal.kind == "cookie" and token:
        return me.model_copy(update={"csrf_token": csrf_for(token)})
    return me


def _with_features(me: MePublic, settings: Settings) -> MePublic:
    return me.model_copy(update={
        "web_search": settings.web_search.tavily_api_key is not None})


@router.get("/me", response_model=MePublic, operation_id="read_me", responses=_PROBLEMS)
async def read_me(request: Request, principal: PrincipalDep, accounts: AccountsDep,
                  settings: SettingsDep) -> MePublic:
    """Who is signed in, for which organisation, and whether onboarding is complete; for a
    browser session also the CSRF token (so a reloaded page can find it again); and which
    optional features (web search) this deployment has."""
    return _with_features(_with_csrf(await accounts.me(principal), principal,
                                     request.cookies.get(SESSION_COOKIE)), settings)


@router.put("/me/profile", response_model=MePublic, operation_id="update_profile",
            responses=_PROBLEMS)
async def update_profile(body: ProfileUpdate, principal: PrincipalDep,
                         accounts: AccountsDep, settings: SettingsDep) -> MePublic:
    """The onboarding form: company, country and industry complete it."""
    await accounts.save_profile(principal, body)
    return _with_features(await accounts.me(principal), settings)
