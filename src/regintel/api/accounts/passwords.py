"""Argon2id password hashes (argon2-cffi defaults: RFC 9106 low-memory profile). Hashing takes
tens of milliseconds of CPU, so it runs in a thread, off the event loop."""

from __future__ import annotations

import asyncio
from functools import lru_cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError


@lru_cache(maxsize=1)
def _hasher() -> PasswordHasher:
    return PasswordHasher()


# Verified when the e-mail is unknown, so a wrong address costs as long as a wrong password
# (no timing oracle for which addresses have accounts).
_DUMMY_HASH = _hasher().hash("regintel-dummy-password")


async def hash_password(password: str) -> str:
    return await asyncio.to_thread(_hasher().hash, password)


async def verify_password(stored_hash: str | None, password: str) -> bool:
    def check() -> bool:
        try:
            return _hasher().verify(stored_hash or _DUMMY_HASH, password) and \
                stored_hash is not None
        except (VerificationError, InvalidHashError):
            return False

    return await asyncio.to_thread(check)
