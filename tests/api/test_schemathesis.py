"""Property-based fuzzing of every operation in the OpenAPI document, authenticated with a
bearer token, judged by schemathesis' own checks: no 5xx, and what is served is what the
document says (status codes, content types, bodies, headers); a schema-valid request is not
refused for its shape, a schema-invalid one is refused.

Hypothesis drives each operation from a worker thread; every generated request is sent on
the test's own event loop (where the app's pools live) through the in-process transport.
Bounded by a few examples per operation so the suite stays fast; derandomized, so a failure
reproduces."""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx
import schemathesis
from fastapi import FastAPI
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import Failure, FailureGroup
from schemathesis.core.result import Ok
from schemathesis.openapi.checks import RejectedPositiveData
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    positive_data_acceptance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.api.conftest import PASSWORD, User, client_for

POSITIVE_EXAMPLES = 8
NEGATIVE_EXAMPLES = 3
# Each chat case runs a real turn, each upload an ingestion, each sign-up or login a password
# hash: fewer of those.
SLOW_EXAMPLES = {"POST /api/chat": 3, "POST /api/documents": 5, "POST /api/auth/signup": 4,
                 "POST /api/auth/login": 4}
# Logging out would revoke the token the rest of the run uses.
SKIP = {"POST /api/auth/logout"}
CONFORMANCE = [not_a_server_error, status_code_conformance, content_type_conformance,
               response_schema_conformance, response_headers_conformance]
# Refusals of schema-valid requests that no schema can foresee, each narrowly: content
# negotiation (406: OpenAPI 3 cannot describe an Accept parameter), a stale change cursor
# (410), a guessable password (judged by zxcvbn), a file that is not a usable document and an
# engine the deployment does not offer (the schema lists every engine; this API offers one).
OUT_OF_SCHEMA = {406, 410}
JUDGED_BY_CONTENT = {
    ("POST /api/auth/signup", 422): ("validation_error", "body.password: the password is too weak"),
    ("POST /api/documents", 400): ("document_rejected", ""),
    ("POST /api/conversations", 400): ("engine_not_offered", "choose one of"),
    ("PATCH /api/conversations/{conversation_id}", 400): ("engine_not_offered",
                                                           "choose one of"),
}
CHECKS = {GenerationMode.POSITIVE: [*CONFORMANCE, positive_data_acceptance],
          GenerationMode.NEGATIVE: [*CONFORMANCE, negative_data_rejection]}


def _files(raw: list[tuple[str, tuple[str | None, Any]]]) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for name, (filename, value) in raw:
        if not isinstance(value, bytes | str):
            # A form field is text: an array or a number in its place cannot be sent, only
            # its text (a valid string), which the API rightly accepts.
            raise TypeError(f"{name}: a {type(value).__name__} is not expressible in a form")
        content = value
        out.append((name, (filename, content) if filename is not None else (None, content)))
    return out


def _beyond_schema(label: str, response: httpx.Response) -> bool:
    if response.status_code in OUT_OF_SCHEMA:
        return True
    expected = JUDGED_BY_CONTENT.get((label, response.status_code))
    if expected is None:
        return False
    body = response.json()
    hint = body.get("hint") or ""
    return bool(body.get("code") == expected[0] and hint.startswith(expected[1])
                and ";" not in hint)  # one error, and it is the content's


@dataclass
class Run:
    sent: int = 0
    failures: list[str] = field(default_factory=list)
    kinds: Counter[str] = field(default_factory=Counter)

    def record(self, label: str, response: httpx.Response, failure: Failure) -> None:
        if isinstance(failure, RejectedPositiveData) and _beyond_schema(label, response):
            return
        self.kinds[type(failure).__name__] += 1
        self.failures.append(f"{label} -> {response.status_code}: {failure.title}\n  "
                             + failure.message.replace("\n", "\n  ")[:600]
                             + f"\n  body: {response.text[:300]}")


async def test_every_operation_conforms(api_app: FastAPI, alice: User) -> None:
    async with client_for(api_app) as anon:
        login = await anon.post("/api/auth/login", json={
            "email": alice.email, "password": PASSWORD, "session": "bearer"})
    token = login.json()["access_token"]
    schema = schemathesis.openapi.from_dict(api_app.openapi())
    results = list(schema.get_all_operations())
    operations = [result.ok() for result in results if isinstance(result, Ok)]
    assert len(operations) == len(results)  # the document itself is valid
    loop = asyncio.get_running_loop()
    run = Run()

    async def send(client: httpx.AsyncClient, kwargs: dict[str, Any]) -> httpx.Response:
        headers = {k: v for k, v in kwargs["headers"].items()
                   if k.lower() not in ("authorization", "cookie")}
        headers["Authorization"] = f"Bearer {token}"
        files = _files(kwargs["files"]) if kwargs.get("files") else None
        data, content = kwargs.get("data"), kwargs.get("content")
        if isinstance(data, bytes | str):  # a raw body (malformed JSON, say): httpx's content
            data, content = None, data
        response = await client.request(
            kwargs["method"], kwargs["url"], params=kwargs.get("params"), headers=headers,
            json=kwargs.get("json"), data=data, files=files, content=content)
        response.request.read()  # a multipart body is streamed; the checks read it back
        return response

    # A crash must come back as a 500 to count, not as an exception in the transport.
    transport = httpx.ASGITransport(app=api_app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        def fuzz(operation: Any, mode: GenerationMode, examples: int) -> None:
            @settings(max_examples=examples, deadline=None, database=None, derandomize=True,
                      phases=[Phase.generate], suppress_health_check=list(HealthCheck))
            @given(operation.as_strategy(generation_mode=mode))
            def check(case: Any) -> None:
                kwargs = case.as_transport_kwargs(base_url="http://test")
                try:
                    response = asyncio.run_coroutine_threadsafe(
                        send(client, kwargs), loop).result(timeout=300)
                except (httpx.LocalProtocolError, UnicodeEncodeError, ValueError, TypeError):
                    return  # not expressible as an HTTP request by the client library
                run.sent += 1
                try:
                    case.validate_response(response, checks=CHECKS[mode])
                except FailureGroup as group:
                    for failure in group.exceptions:
                        run.record(operation.label, response, failure)
                except Failure as failure:
                    run.record(operation.label, response, failure)

            try:
                check()
            except Unsatisfiable:
                # Nothing to negate: the operation takes no parameters and no body.
                assert mode is GenerationMode.NEGATIVE, operation.label

        for operation in operations:
            if operation.label in SKIP:
                continue
            positive = SLOW_EXAMPLES.get(operation.label, POSITIVE_EXAMPLES)
            await asyncio.to_thread(fuzz, operation, GenerationMode.POSITIVE, positive)
            await asyncio.to_thread(fuzz, operation, GenerationMode.NEGATIVE,
                                    min(positive, NEGATIVE_EXAMPLES))
    assert run.sent > len(operations) * 2
    summary = (f"{len(operations)} operations, {run.sent} requests, {len(run.failures)} "
               f"failures: {dict(run.kinds)}")
    print(summary)
    assert not run.failures, summary + "\n" + "\n".join(run.failures[:400])
