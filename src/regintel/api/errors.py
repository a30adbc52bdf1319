"""The one place errors become HTTP responses (RFC 9457 problem+json).

The edge-only error kinds (authentication, permission, rate limits, oversize bodies) are
declared here beside their statuses; services raise the taxonomy of ``regintel.errors``."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from regintel.errors import (
    ConfigurationError,
    DependencyUnavailable,
    DocumentRejected,
    InvalidRequest,
    NotFound,
    RegintelError,
    ResyncRequired,
    UserInputNeeded,
)

log = logging.getLogger(__name__)


class AuthenticationRequired(RegintelError):
    """No valid session or token came with the request (or the credentials are wrong)."""

    code = "authentication_required"


class PermissionDenied(RegintelError):
    """Signed in, but this role may not do that."""

    code = "permission_denied"


class CsrfRejected(PermissionDenied):
    """A cookie-authenticated unsafe request without the matching CSRF header."""

    code = "csrf_rejected"


class Conflict(InvalidRequest):
    """The request clashes with what exists (an e-mail already registered…)."""

    code = "conflict"


class PayloadTooLarge(DocumentRejected):
    """The request body is larger than the limit; reading stopped at the limit."""

    code = "payload_too_large"


class RateLimited(RegintelError):
    """Too many requests of one kind from one user; ``retry_after_s`` says when to retry."""

    code = "rate_limited"

    def __init__(self, message: str, *, retry_after_s: float, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.retry_after_s = retry_after_s


# First match wins, so subclasses come before their bases.
_STATUS: tuple[tuple[type[RegintelError], int], ...] = (
    (NotFound, 404),
    (PayloadTooLarge, 413),
    (Conflict, 409),
    (InvalidRequest, 400),
    (AuthenticationRequired, 401),
    (PermissionDenied, 403),
    (RateLimited, 429),
    (UserInputNeeded, 409),
    (ResyncRequired, 410),
    (DependencyUnavailable, 503),
    (ConfigurationError, 500),
)


def status_for(exc: RegintelError) -> int:
    return next((status for kind, status in _STATUS if isinstance(exc, kind)), 500)


def problem_body(status: int, code: str, title: str,
                 hint: str | None = None) -> dict[str, object]:
    body: dict[str, object] = {"type": f"urn:regintel:error:{code}", "title": title,
                               "status": status, "code": code}
    if hint:
        body["hint"] = hint
    return body


def problem(status: int, code: str, title: str, hint: str | None = None,
            headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(problem_body(status, code, title, hint), status_code=status,
                        media_type="application/problem+json", headers=headers)


def problem_for(exc: RegintelError) -> JSONResponse:
    headers = {"Retry-After": str(max(1, round(exc.retry_after_s)))} \
        if isinstance(exc, RateLimited) else None
    if isinstance(exc, AuthenticationRequired):
        headers = {"WWW-Authenticate": 'Bearer realm="regintel"'}
    return problem(status_for(exc), exc.code, exc.message, exc.hint, headers)


def install(app: FastAPI) -> None:
    @app.exception_handler(RegintelError)
    async def _regintel_error(_: Request, exc: RegintelError) -> JSONResponse:
        return problem_for(exc)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
        details = "; ".join(
            f"{'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg', '')}"
            for e in exc.errors()[:5])
        return problem(422, "validation_error", "the request is not valid", details or None)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        headers = dict(exc.headers) if exc.headers else {}
        if exc.status_code == 400:
            # The framework's only 400 is a body it could not parse; a body that does not
            # match the document is a 422 however it fails (FastAPI's convention, and what
            # the OpenAPI document says).
            return problem(422, "validation_error", "the request body could not be read",
                           str(exc.detail))
        if exc.status_code == 405:
            headers["Allow"] = ", ".join(allowed_methods(request))
        return problem(exc.status_code, f"http_{exc.status_code}", str(exc.detail),
                       headers=headers or None)

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error", exc_info=exc)
        return unexpected()


_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def allowed_methods(request: Request) -> list[str]:
    """The methods some route serves at this request's path. Starlette's 405 names only the
    first route that matched the path, though GET and POST of one path are separate routes."""
    routes = request.app.router.routes
    return [method for method in _METHODS
            if any(route.matches({**request.scope, "method": method})[0] is Match.FULL
                   for route in routes)]


def unexpected() -> JSONResponse:
    """The answer to an unexpected error: the details stay in the log; the caller learns only
    that it was our fault."""
    return problem(500, "internal_error", "an unexpected error occurred",
                   "try again; if it persists, report it with the time of the request")
