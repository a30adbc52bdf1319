"""Tavily search (``POST {base_url}/search``, bearer key) over httpx.

Basic depth costs one credit per query. Rate limits (429) are retried once after the
``Retry-After`` the server gives; a spent plan (432, or 433 for the pay-as-you-go cap) is
reported as ``WebSearchLimitReached`` so the chat can show the spec's message instead of an
error. Anything else is ``DependencyUnavailable``: the turn goes on without web results.
"""

from __future__ import annotations

import asyncio
import logging

import httpx

from regintel.errors import DependencyUnavailable
from regintel.ports.websearch import WebResult, WebSearchLimitReached

log = logging.getLogger(__name__)
LIMIT_STATUSES = frozenset({432, 433})
MAX_QUERY_CHARS = 400  # Tavily's advice: longer queries are truncated or refused


class TavilySearch:
    def __init__(self, *, api_key: str, base_url: str = "https://api.tavily.com",
                 timeout_s: float = 15.0, monthly_limit: int = 1000,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        self._url = base_url.rstrip("/") + "/search"
        self._headers = {"Authorization": f"Bearer {api_key}"}
        self._client = httpx.AsyncClient(timeout=httpx.Timeout(timeout_s), transport=transport)
        self.monthly_limit = monthly_limit

    async def aclose(self) -> None:
        await self._client.aclose()

    async def search(self, query: str, *, max_results: int = 5) -> list[WebResult]:
        body = {"query": query[:MAX_QUERY_CHARS], "search_depth": "basic",
                "max_results": max_results, "include_answer": False}
        for attempt in (1, 2):  # the spec: two attempts, for rate limits
            try:
                response = await self._client.post(self._url, json=body, headers=self._headers)
            except httpx.HTTPError as exc:
                raise DependencyUnavailable("web search is unreachable") from exc
            if response.status_code in LIMIT_STATUSES:
                raise WebSearchLimitReached(
                    f"Web Search Limit Reached ({self.monthly_limit}/month)",
                    hint="web results resume next month, or raise the plan's limit")
            if response.status_code == 429 and attempt == 1:
                await asyncio.sleep(min(float(response.headers.get("retry-after", "1")), 5.0))
                continue
            if response.status_code != 200:
                log.warning("web search failed: HTTP %s %s", response.status_code,
                            response.text[:200])
                raise DependencyUnavailable(f"web search failed (HTTP {response.status_code})")
            try:
                results = response.json().get("results") or []
                return [WebResult(title=r.get("title") or r["url"], url=r["url"],
                                  content=r.get("content") or "", score=float(r.get("score", 0)))
                        for r in results if r.get("url")]
            except (ValueError, KeyError, TypeError) as exc:
                raise DependencyUnavailable("web search returned an unreadable answer") from exc
        raise DependencyUnavailable("web search is rate-limited")
