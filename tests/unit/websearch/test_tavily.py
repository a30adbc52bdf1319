"""The Tavily adapter against its documented wire format, replayed with httpx's mock transport
(no network): results mapped, the bearer key sent, a 429 retried once, a spent plan reported
as the limit, other failures as an unavailable dependency."""

from __future__ import annotations

import json

import httpx
import pytest

from regintel.adapters.websearch.tavily import TavilySearch
from regintel.errors import DependencyUnavailable
from regintel.ports.websearch import WebSearchLimitReached

RESULTS = {"query": "q", "response_time": 0.8, "results": [
    {"title": "AML amendments 2026", "url": "https://example.org/aml", "content": "Text.",
     "score": 0.9, "raw_content": None},
    {"title": "", "url": "https://example.org/untitled", "content": "More.", "score": 0.4},
    {"title": "No URL", "content": "Dropped."}]}


def _search(*responses: httpx.Response) -> tuple[TavilySearch, list[httpx.Request]]:
    seen: list[httpx.Request] = []
    queue = list(responses)

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return queue.pop(0)

    return TavilySearch(api_key="tvly-k", base_url="https://api.tavily.test",
                        transport=httpx.MockTransport(handle)), seen


async def test_results_are_mapped_and_the_key_is_a_bearer_header() -> None:
    search, seen = _search(httpx.Response(200, json=RESULTS))
    results = await search.search("latest AML rules " + "x" * 500, max_results=3)
    assert [(r.title, r.url, r.score) for r in results] == [
        ("AML amendments 2026", "https://example.org/aml", 0.9),
        ("https://example.org/untitled", "https://example.org/untitled", 0.4)]
    body = json.loads(seen[0].content)
    assert seen[0].url == "https://api.tavily.test/search"
    assert seen[0].headers["authorization"] == "Bearer tvly-k"
    assert body["max_results"] == 3 and body["search_depth"] == "basic"
    assert len(body["query"]) == 400
    await search.aclose()


async def test_rate_limit_is_retried_once() -> None:
    search, seen = _search(httpx.Response(429, headers={"retry-after": "0"}),
                           httpx.Response(200, json=RESULTS))
    assert len(await search.search("q")) == 2 and len(seen) == 2
    search, seen = _search(httpx.Response(429, headers={"retry-after": "0"}),
                           httpx.Response(429, headers={"retry-after": "0"}))
    with pytest.raises(DependencyUnavailable):
        await search.search("q")


@pytest.mark.parametrize("status", [432, 433])
async def test_spent_plan_is_the_limit_message(status: int) -> None:
    search, _ = _search(httpx.Response(status, json={"detail": {"error": "limit"}}))
    with pytest.raises(WebSearchLimitReached, match=r"Web Search Limit Reached \(1000/month\)"):
        await search.search("q")


@pytest.mark.parametrize("response", [httpx.Response(500, text="boom"),
                                      httpx.Response(401, json={"detail": "bad key"}),
                                      httpx.Response(200, text="not json")])
async def test_other_failures_are_an_unavailable_dependency(response: httpx.Response) -> None:
    search, _ = _search(response)
    with pytest.raises(DependencyUnavailable) as caught:
        await search.search("q")
    assert not isinstance(caught.value, WebSearchLimitReached)
