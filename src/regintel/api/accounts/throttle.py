"""Sign-in and sign-up throttles per account (e-mail) and per client address (issue 34).

Every attempt is counted *before* the password is hashed or verified, so a throttled attempt
costs one SQL statement and no Argon2 time. A good sign-in forgets the account's failures and
takes its own attempt back from the address. The counters live in Postgres (every replica sees
them) under a keyed hash of the e-mail or address, so the table names no one."""

from __future__ import annotations

import hashlib
import hmac

from fastapi import Request

from regintel.adapters.postgres.database import Database
from regintel.adapters.postgres.throttle_repo import AttemptRule, PostgresThrottles
from regintel.api.errors import RateLimited
from regintel.settings import ApiSettings, Settings, resolve_secret_key

LOGIN_ACCOUNT = "login_account"
LOGIN_ADDRESS = "login_address"
SIGNUP_ACCOUNT = "signup_account"
SIGNUP_ADDRESS = "signup_address"


def client_address(request: Request, api: ApiSettings) -> str:
    """The caller's address: the socket peer, or behind a trusted proxy the entry it appended
    (the last one; the earlier ones are whatever the client chose to send)."""
    if api.trust_forwarded_for:
        forwarded = request.headers.get("x-forwarded-for", "")
        last = forwarded.rsplit(",", 1)[-1].strip()
        if last:
            return last
    return request.client.host if request.client else "unknown"


class AuthThrottle:
    def __init__(self, database: Database, settings: Settings) -> None:
        api = settings.api
        self._store = PostgresThrottles(database)
        self._key = resolve_secret_key(settings).encode()
        login = (api.login_window_s, api.login_backoff_s, api.login_backoff_max_s)
        signup = (api.signup_window_s, api.signup_window_s, api.signup_backoff_max_s)
        self._rules = {
            LOGIN_ACCOUNT: AttemptRule(api.login_failures_per_account, *login),
            LOGIN_ADDRESS: AttemptRule(api.login_failures_per_address, *login),
            SIGNUP_ACCOUNT: AttemptRule(api.signups_per_address, *signup),
            SIGNUP_ADDRESS: AttemptRule(api.signups_per_address, *signup),
        }

    def subject(self, scope: str, value: str) -> str:
        """HMAC-SHA256 of the lower-cased value under the app secret: stable across replicas,
        useless to whoever copies the table without the secret."""
        message = f"{scope}:{value.strip().lower()}".encode()
        return hmac.new(self._key, message, hashlib.sha256).hexdigest()

    async def admit_login(self, email: str, address: str) -> None:
        await self._admit(((LOGIN_ACCOUNT, email), (LOGIN_ADDRESS, address)),
                          "too many sign-in attempts")

    async def login_succeeded(self, email: str, address: str) -> None:
        await self._store.clear(LOGIN_ACCOUNT, self.subject(LOGIN_ACCOUNT, email))
        await self._store.release(LOGIN_ADDRESS, self.subject(LOGIN_ADDRESS, address))

    async def admit_signup(self, email: str, address: str) -> None:
        """Every sign-up counts, whether the address was new or not (the answer and the
        limit must not tell them apart)."""
        await self._admit(((SIGNUP_ACCOUNT, email), (SIGNUP_ADDRESS, address)),
                          "too many sign-ups")

    async def _admit(self, subjects: tuple[tuple[str, str], ...], message: str) -> None:
        wait = 0.0
        for scope, value in subjects:
            wait = max(wait, await self._store.attempt(
                scope, self.subject(scope, value), self._rules[scope]))
        if wait > 0:
            raise RateLimited(message, retry_after_s=wait,
                              hint=f"wait {max(1, round(wait))} s and try again")
