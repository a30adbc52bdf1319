"""The browser UI: static ES modules, one stylesheet and one HTML shell, served by the API app.

No build step and no Node at run time: the files under ``static/`` ship with the package. The
shell is answered for each page path the UI routes on the client (so a reload or a bookmark of
``/dashboard`` works); the pages are left out of the OpenAPI document, which describes the API.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

STATIC_DIR = Path(__file__).resolve().parent / "static"
INDEX = STATIC_DIR / "index.html"
# The client-side routes (static/js/main.js keeps the same list).
PAGES = ("/", "/auth/login", "/auth/signup", "/onboarding", "/dashboard", "/projects",
         "/graph")


def _shell() -> FileResponse:
    # Revalidated on every load, so a new release is picked up without a hard refresh.
    return FileResponse(INDEX, media_type="text/html", headers={"Cache-Control": "no-cache"})


def install(app: FastAPI) -> None:
    """Serve the UI: the shell at each page path and the assets under ``/static``."""
    for path in PAGES:
        app.add_api_route(path, _shell, methods=["GET"], include_in_schema=False,
                          response_class=FileResponse, name=f"page:{path}")
    # An audit's review screen (issue 47), reloadable and bookmarkable like the pages above.
    app.add_api_route("/review/{conversation_id}/{message_id}", _shell, methods=["GET"],
                      include_in_schema=False, response_class=FileResponse,
                      name="page:/review")
    # What changed between two versions of a document (issue 48); ?from= names the earlier.
    app.add_api_route("/changes/{document_id}", _shell, methods=["GET"],
                      include_in_schema=False, response_class=FileResponse,
                      name="page:/changes")
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
