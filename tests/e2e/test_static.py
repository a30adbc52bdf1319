"""The UI is served by the API app (no browser needed): the shell at each page path with the
strict CSP, the assets under /static, nothing of it in the OpenAPI document, API errors still
problem+json, and the files are package data."""

from __future__ import annotations

from importlib.resources import files

import httpx
import pytest

from regintel.api.security import APP_CSP
from regintel.web import PAGES


@pytest.mark.parametrize("path", PAGES)
def test_each_page_path_answers_the_shell(live_server: str, path: str) -> None:
    response = httpx.get(f"{live_server}{path}")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert response.headers["content-security-policy"] == APP_CSP
    assert '<script type="module" src="/static/js/main.js">' in response.text
    assert "<style" not in response.text and " style=" not in response.text


def test_assets_are_served_and_the_api_is_unchanged(live_server: str) -> None:
    css = httpx.get(f"{live_server}/static/app.css")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    script = httpx.get(f"{live_server}/static/js/main.js")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert httpx.get(f"{live_server}/static/js/nothing.js").status_code == 404
    missing = httpx.get(f"{live_server}/api/nothing-here")
    assert missing.status_code == 404
    assert missing.headers["content-type"] == "application/problem+json"
    paths = httpx.get(f"{live_server}/openapi.json").json()["paths"]
    assert not [p for p in paths if not p.startswith(("/api/", "/healthz"))]


def test_no_script_builds_markup_from_strings() -> None:
    """All text reaches the DOM through text nodes: no innerHTML, outerHTML,
    insertAdjacentHTML or document.write anywhere in the UI's scripts."""
    root = files("regintel.web") / "static"
    assert (root / "index.html").is_file() and (root / "app.css").is_file()
    scripts = [f for d in (root / "js", root / "js" / "screens", root / "js" / "dashboard",
                           root / "js" / "review", root / "js" / "changes")
               for f in d.iterdir() if f.name.endswith(".js")]
    assert len(scripts) >= 10
    for script in scripts:
        text = script.read_text(encoding="utf-8")
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write",
                     "eval(", "new Function"):
            assert sink not in text, f"{script.name} uses {sink}"
