"""Browser protections on every response, and CORS only when configured.

The UI is served by this app from the same origin, so the CSP allows only 'self'; the
interactive API docs load Swagger UI from its CDN and get a looser policy of their own."""

from __future__ import annotations

import logging

from fastapi import FastAPI
from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from regintel.api.deps import CSRF_HEADER
from regintel.api.errors import unexpected
from regintel.settings import ApiSettings

APP_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
           "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; "
           "form-action 'self'; frame-ancestors 'none'")
DOCS_CSP = ("default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
            "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
            "img-src 'self' data: https://fastapi.tiangolo.com; object-src 'none'; "
            "frame-ancestors 'none'")
log = logging.getLogger(__name__)
_DOCS_PATHS = ("/docs", "/redoc")
_COMMON = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=()"),
)


class SecurityHeaders:
    """Pure ASGI (not BaseHTTPMiddleware), so streamed answers are not buffered."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")
        csp = DOCS_CSP if path.startswith(_DOCS_PATHS) else APP_CSP
        started = False

        async def with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                extra = [*_COMMON, (b"content-security-policy", csp.encode())]
                if path.startswith("/api/"):
                    # Answers and documents are private: never kept by shared caches.
                    extra.append((b"cache-control", b"no-store"))
                headers.extend(h for h in extra if h[0] not in present)
                message["headers"] = headers
            await send(message)

        try:
            await self.app(scope, receive, with_headers)
        except Exception:
            # An unexpected error would otherwise be answered by Starlette's outermost
            # handler, outside this middleware: a 500 without these headers.
            if started:
                raise
            log.exception("unhandled error on %s %s", scope.get("method"), path)
            await unexpected()(scope, receive, with_headers)


def install(app: FastAPI, settings: ApiSettings) -> None:
    if settings.cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=list(settings.cors_origins),
                           allow_credentials=True,
                           allow_methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
                           allow_headers=["Authorization", "Content-Type", CSRF_HEADER])
    app.add_middleware(SecurityHeaders)
