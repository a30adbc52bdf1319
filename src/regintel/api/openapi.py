"""The OpenAPI document, completed with the problem responses the API really serves.

Route decorators describe what is particular to each operation (a 409 on a clash, a 413 on
an upload). What every operation of a kind can answer is added here, once, from facts the
document and the routes already state: a signed-in operation can answer 401 and 403, one
with a path parameter 404, one with input 422, one behind the rate limiter 429, and any
operation 503 when a store is down. Every error response, declared by a route or added here,
is an RFC 9457 problem: ``application/problem+json`` with the ``Problem`` schema, and the
``WWW-Authenticate`` / ``Retry-After`` headers ``api/errors.py`` sends with 401 and 429."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from fastapi import FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute

from regintel.api.deps import get_limiter
from regintel.api.sse import SSE_EVENT_SCHEMA

PROBLEM_MEDIA_TYPE = "application/problem+json"
_PROBLEM_REF = "#/components/schemas/Problem"
_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_UNSAFE = frozenset({"post", "put", "patch", "delete"})

PROBLEM_SCHEMA: dict[str, Any] = {
    "title": "Problem",
    "type": "object",
    "description": "An RFC 9457 problem. `code` is stable (clients branch on it); `title` "
    "and `hint` are for people.",
    "required": ["type", "title", "status", "code"],
    "properties": {
        "type": {"type": "string", "description": "`urn:regintel:error:<code>`."},
        "title": {"type": "string"},
        "status": {"type": "integer", "minimum": 400, "maximum": 599},
        "code": {"type": "string"},
        "hint": {"type": "string", "description": "What to do about it."},
    },
}

_DESCRIPTIONS = {
    401: "Not signed in, or the session has expired",
    403: "Signed in, but this role may not do that",
    404: "No such resource in this organisation",
    422: "The request does not match this document (malformed JSON, a missing, unknown or "
         "invalid field or parameter)",
    429: "Too many requests: retry after the Retry-After seconds",
    503: "A store or model this needs is unavailable: retry later",
}
_CSRF = " (or a browser session's write lacks the X-CSRF-Token header)"
_HEADERS: dict[int, dict[str, Any]] = {
    401: {"WWW-Authenticate": {"required": True, "schema": {"type": "string"},
                               "description": "`Bearer realm=\"regintel\"`."}},
    429: {"Retry-After": {"required": True, "schema": {"type": "integer", "minimum": 1},
                          "description": "Seconds to wait before retrying."}},
}
# FastAPI's own 422 body, replaced by the problem the handler really sends.
_FASTAPI_VALIDATION = ("HTTPValidationError", "ValidationError")
# Request bodies refuse NUL characters anywhere (no Postgres text column can store them).
_NUL_FREE = "^[^\\u0000]*$"
_JSON_VALUE_REF = "#/components/schemas/JsonValue"
JSON_VALUE_SCHEMA: dict[str, Any] = {
    "title": "JsonValue",
    "description": "Any JSON value without NUL characters.",
    "anyOf": [
        {"type": "string", "pattern": _NUL_FREE},
        {"type": ["number", "boolean", "null"]},
        {"type": "array", "items": {"$ref": _JSON_VALUE_REF}},
        {"type": "object", "propertyNames": {"pattern": _NUL_FREE},
         "additionalProperties": {"$ref": _JSON_VALUE_REF}},
    ],
}


Limits = dict[tuple[str, str], dict[str, Any]]


def install(app: FastAPI, routes: Iterable[APIRoute], limits: Limits | None = None) -> None:
    """Serve the completed document from ``app.openapi()`` (and so /openapi.json). ``routes``
    are the API's routes; their dependencies say which operations are rate limited.
    ``limits`` adds keywords to (schema, property) for limits that come from settings."""
    limited = {(method.lower(), route.path_format) for route in routes
               for method in route.methods or () if _depends_on(route.dependant, get_limiter)}
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = complete(build(), limited, limits or {})
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's documented override


def complete(document: dict[str, Any], limited: set[tuple[str, str]],
             limits: Limits) -> dict[str, Any]:
    """``document`` with the common problem responses added, every error response made a
    problem, event streams described event by event, and the request bodies' limits that
    pydantic's schema does not show; ``limited`` holds the (method, path) of the
    rate-limited operations."""
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    schemas["Problem"] = copy.deepcopy(PROBLEM_SCHEMA)
    schemas["JsonValue"] = copy.deepcopy(JSON_VALUE_SCHEMA)
    for (name, prop), keywords in limits.items():
        schemas[name]["properties"][prop].update(keywords)
    seen: set[int] = set()
    for path, method, operation in _operations(document):
        body = operation.get("requestBody", {}).get("content", {}).get("application/json")
        if body is not None:
            _refuse_nul(body["schema"], schemas, seen)
        responses: dict[str, Any] = operation.setdefault("responses", {})
        for common in _common_statuses(path, method, operation, limited):
            description = _DESCRIPTIONS[common]
            if common == 403 and method in _UNSAFE:
                description += _CSRF
            responses.setdefault(str(common), {"description": description})
        for status, response in responses.items():
            if status.isdigit() and int(status) >= 400:
                _make_problem(int(status), response)
            stream = response.get("content", {}).get("text/event-stream")
            if stream is not None and stream.get("schema") == {"type": "string"}:
                # OpenAPI 3.1 without `itemSchema`: the schema of a stream is one event's.
                stream["schema"] = copy.deepcopy(SSE_EVENT_SCHEMA)
    for name in _FASTAPI_VALIDATION:
        schemas.pop(name, None)
    return document


def _operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in document.get("paths", {}).items():
        for method in _METHODS:
            if method in item:
                yield path, method, item[method]


def _common_statuses(path: str, method: str, operation: dict[str, Any],
                     limited: set[tuple[str, str]]) -> Iterator[int]:
    if not path.startswith("/api/"):
        return  # the UI's pages and assets are not the API
    if operation.get("security"):
        yield from (401, 403)
    if "{" in path:
        yield 404
    if operation.get("parameters") or operation.get("requestBody"):
        yield 422
    if (method, path) in limited:
        yield 429
    yield 503


def _make_problem(status: int, response: dict[str, Any]) -> None:
    """Describe ``response`` as a problem, unless a route declared a body of its own for it
    (the health check's 503 is its ordinary report)."""
    content: dict[str, Any] = response.get("content") or {}
    if content:
        schema = content.get("application/json", {}).get("schema")
        if len(content) > 1 or schema is None or (schema and not _is_fastapi_validation(
                schema)):
            return
    response["content"] = {PROBLEM_MEDIA_TYPE: {"schema": {"$ref": _PROBLEM_REF}}}
    if status in _HEADERS:
        response.setdefault("headers", {}).update(_HEADERS[status])


def _refuse_nul(schema: dict[str, Any], schemas: dict[str, Any], seen: set[int]) -> None:
    """Say in ``schema`` (in place, following references once each) that its strings and
    property names hold no NUL, and that its free-form values are NUL-free JSON."""
    if id(schema) in seen:
        return
    seen.add(id(schema))
    if (ref := schema.get("$ref")) is not None:
        _refuse_nul(schemas[ref.rsplit("/", 1)[-1]], schemas, seen)
        return
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "string" in kinds and not ({"format", "enum", "const"} & schema.keys()):
        if schema.get("pattern") == _NUL_FREE:
            pass
        elif "pattern" in schema:  # one pattern per schema: the NUL rule joins through allOf
            schema.setdefault("allOf", []).append({"pattern": _NUL_FREE})
        else:
            schema["pattern"] = _NUL_FREE
    if "object" in kinds:
        extra = schema.get("additionalProperties", True)
        if extra is not False:
            schema["propertyNames"] = {"pattern": _NUL_FREE}
            if extra is True or extra == {}:
                schema["additionalProperties"] = {"$ref": _JSON_VALUE_REF}
    for key in ("items", "additionalProperties", "not"):
        if isinstance(schema.get(key), dict):
            _refuse_nul(schema[key], schemas, seen)
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        for sub in schema.get(key, []):
            _refuse_nul(sub, schemas, seen)
    for sub in schema.get("properties", {}).values():
        if sub == {}:  # an untyped field takes any JSON
            sub["$ref"] = _JSON_VALUE_REF
        _refuse_nul(sub, schemas, seen)


def _is_fastapi_validation(schema: dict[str, Any]) -> bool:
    ref = schema.get("$ref", "")
    return isinstance(ref, str) and ref.rsplit("/", 1)[-1] in _FASTAPI_VALIDATION


def _depends_on(dependant: Dependant, call: Callable[..., Any]) -> bool:
    return dependant.call is call or any(_depends_on(d, call) for d in dependant.dependencies)
