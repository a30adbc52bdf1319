"""Web search in a turn (policypal spec, "Web search tool"): when the user asks for it (@Web,
or "Search the web" at a prompt) or the question has a temporal cue ("latest", "current",
"2026") and a provider is configured. Results become ``source_type: web`` citations; a spent
plan gives the spec's limit message; a failing provider is a degradation, never an error."""

from __future__ import annotations

import logging
import re
from typing import Any

from regintel.chat.deps import TurnDeps
from regintel.errors import DependencyUnavailable
from regintel.ports.websearch import WebResult, WebSearchLimitReached
from regintel.retrieval.evidence import CitationBook, sentences

log = logging.getLogger(__name__)
TEMPORAL = re.compile(r"\b(?:latest|current(?:ly)?|recent(?:ly)?|newest|upcoming|today|"
                      r"this year|20[2-3]\d)\b", re.I)
UNAVAILABLE = ("Web search is not configured for this workspace; the answer uses the "
               "uploaded documents only.")
WEB_HEADING = "From the web:"
MAX_CITED = 3


def wanted(deps: TurnDeps, question: str, *, asked: bool) -> bool:
    return deps.web is not None and (asked or bool(TEMPORAL.search(question)))


async def search(deps: TurnDeps, question: str) -> tuple[list[dict[str, Any]], list[str]]:
    """Results (JSON) and the notices the user should see."""
    assert deps.web is not None
    try:
        with deps.timed("web_search"):
            results = await deps.web.search(question)
    except WebSearchLimitReached as exc:
        return [], [f"⚠️ {exc.message}"]
    except DependencyUnavailable as exc:
        log.warning("web search failed: %s", exc)
        return [], [f"Web results are unavailable for this answer ({exc.message})."]
    return [r.model_dump(mode="json") for r in results], []


def cite(answer: str, results: list[dict[str, Any]], book: CitationBook) -> str:
    """``answer`` with a short "From the web" section: the first sentence of each top result's
    extract, cited 🌐 with its URL."""
    lines = []
    for raw in results[:MAX_CITED]:
        result = WebResult.model_validate(raw)
        found = sentences(result.content) or [result.content]
        snippet = found[0].strip()
        if not snippet:
            continue
        n = book.add_web(result.title, result.url, snippet)
        lines.append(f"- {result.title}: {snippet} [{n}]")
    if not lines:
        return answer
    return f"{answer}\n\n{WEB_HEADING}\n" + "\n".join(lines)
