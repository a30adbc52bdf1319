"""The one place errors become HTTP responses (RFC 9457 problem+json)."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from regintel.errors import (
    ConfigurationError,
    DependencyUnavailable,
    InvalidRequest,
    NotFound,
    RegintelError,
    UserInputNeeded,
)

_STATUS: tuple[tuple[type[RegintelError], int], ...] = (
    (NotFound, 404),
    (InvalidRequest, 400),
    (UserInputNeeded, 409),
    (DependencyUnavailable, 503),
    (ConfigurationError, 500),
)


def status_for(exc: RegintelError) -> int:
    return next((status for kind, status in _STATUS if isinstance(exc, kind)), 500)


def problem(status: int, code: str, title: str, hint: str | None = None) -> JSONResponse:
    body: dict[str, object] = {"type": f"urn:regintel:error:{code}", "title": title,
                               "status": status, "code": code}
    if hint:
        body["hint"] = hint
    return JSONResponse(body, status_code=status, media_type="application/problem+json")


def install(app: FastAPI) -> None:
    @app.exception_handler(RegintelError)
    async def _regintel_error(_: Request, exc: RegintelError) -> JSONResponse:
        return problem(status_for(exc), exc.code, exc.message, exc.hint)
