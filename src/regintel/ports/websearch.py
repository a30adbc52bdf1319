"""Web search port: public web results a turn may cite (``source_type: web``)."""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel, ConfigDict

from regintel.errors import DependencyUnavailable


class WebResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    title: str
    url: str
    content: str  # the provider's query-relevant extract of the page
    score: float = 0.0


class WebSearchLimitReached(DependencyUnavailable):
    """The plan's monthly quota is spent: the spec's "Web Search Limit Reached" message."""


class WebSearch(Protocol):
    async def search(self, query: str, *, max_results: int = 5) -> list[WebResult]:
        """Raises ``WebSearchLimitReached`` when the quota is spent and
        ``DependencyUnavailable`` when the provider cannot answer."""
        ...
