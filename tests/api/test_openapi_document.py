"""The OpenAPI document against what the API serves, where fuzzing alone would rarely look:
every error is declared as a problem, a body that cannot be parsed is the 422 the document
promises, and a 405 names in ``Allow`` exactly the methods the document lists for the path."""

from __future__ import annotations

import re
from typing import Any

import httpx
from fastapi import FastAPI

from tests.api.conftest import User

METHODS = ("get", "post", "put", "patch", "delete")


def test_every_error_response_is_a_problem(api_app: FastAPI) -> None:
    document = api_app.openapi()
    assert "HTTPValidationError" not in document["components"]["schemas"]
    checked = 0
    for path, item in document["paths"].items():
        for method in METHODS:
            if method not in item or not path.startswith("/api/"):
                continue
            responses: dict[str, Any] = item[method]["responses"]
            assert "503" in responses, f"{method} {path}"
            if item[method].get("security"):
                assert {"401", "403"} <= responses.keys(), f"{method} {path}"
                assert responses["401"]["headers"]["WWW-Authenticate"]["required"]
            for status, response in responses.items():
                if int(status) >= 400:
                    checked += 1
                    assert list(response["content"]) == ["application/problem+json"], \
                        f"{method} {path} {status}"
    assert checked > 100
    chat = document["paths"]["/api/chat"]["post"]["responses"]
    assert chat["429"]["headers"]["Retry-After"]["required"]  # behind the rate limiter


async def test_unparseable_bodies_are_the_documented_422(alice: User) -> None:
    for raw in (b'{"title": ', b"\xff\xfe", b"[1, 2"):
        response = await alice.client.post(
            "/api/conversations", content=raw, headers={"content-type": "application/json"})
        assert response.status_code == 422, raw
        assert response.headers["content-type"] == "application/problem+json"
        assert response.json()["code"] == "validation_error"


async def test_405_lists_the_documented_methods(api_app: FastAPI,
                                                anon: httpx.AsyncClient) -> None:
    paths = api_app.openapi()["paths"]
    templates = {path: re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", path) + "$")
                 for path in paths}
    refused = 0
    for path in paths:
        concrete = path.replace("{", "").replace("}", "")  # any segment matches a parameter
        # A literal path can also match another's template (/invitations/accept and
        # /invitations/{invitation_id}): it is served by the methods of both.
        declared = {m.upper() for other, pattern in templates.items()
                    if pattern.match(concrete) for m in METHODS if m in paths[other]}
        for method in {m.upper() for m in METHODS} - declared:
            response = await anon.request(method, concrete)
            assert response.status_code == 405, f"{method} {path}"
            allowed = {m.strip() for m in response.headers["allow"].split(",")}
            assert allowed == declared, f"{method} {path}: {allowed} != {declared}"
            refused += 1
    assert refused > 50
