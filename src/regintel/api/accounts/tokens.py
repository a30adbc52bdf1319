"""Opaque tokens. Only a SHA-256 hash of a session or invitation token is stored, so a leaked
table cannot be replayed; 256 random bits make a keyed hash unnecessary."""

from __future__ import annotations

import hashlib
import hmac
import secrets


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def csrf_for(token: str) -> str:
    """The double-submit CSRF token bound to one session token. A page on another origin can
    make the browser send the HTTP-only session cookie, but it can neither read that cookie nor
    this value, so it cannot forge the header. The prefix keeps it distinct from the stored
    hash, so the sessions table does not reveal CSRF tokens either."""
    return hashlib.sha256(b"regintel-csrf:" + token.encode()).hexdigest()


def same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())
