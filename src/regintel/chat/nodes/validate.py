"""After the answer: concept capture, the sources bundle, and the three validators of the
memory spec — sources, tone, output guardrail."""

from __future__ import annotations

import re
from typing import Any

from regintel.chat import concepts
from regintel.chat.nodes.common import Rt, Update, note
from regintel.chat.prompts import SYSTEM_PROMPT
from regintel.chat.state import ChatState
from regintel.domain.chat import (
    Citation,
    OutputGuardrail,
    ToneValidation,
    Validation,
)
from regintel.retrieval.evidence import SUPPORT, content_words, normalise

SAFE_FALLBACK = ("Unable to provide this answer: it did not pass the output checks. Please "
                 "rephrase the question or contact support.")
_MARKER = re.compile(r"\[(\d+)\]")
_URL = re.compile(r"https?://[^\s)\]>\"']+")


async def capture_concepts(state: ChatState, runtime: Rt) -> Update:
    """Resolve the turn's concepts into the graph; the response references them and the
    conversation keeps them in scope (see ``chat.concepts``)."""
    deps = runtime.context
    captured = await concepts.finish(
        deps, payloads=state.get("concepts"), question=state.get("message", ""),
        answer=state.get("answer", ""), citations=state.get("citations") or [])
    if captured is None:
        return {"referenced_nodes": []}
    return {"referenced_nodes": captured.referenced_nodes,
            "context": note(state, "active_node_ids", captured.context.activeNodeIds)}


async def bundle_sources(state: ChatState, runtime: Rt) -> Update:
    """Citations the answer actually uses, in order; quotes that failed verification were
    already dropped by the citation book and are counted here."""
    citations = [Citation.model_validate(c) for c in state.get("citations") or []]
    validation = _validation(state)
    validation.sources = validation.sources.model_copy(update={
        "verified": len(citations), "dropped": state.get("dropped_quotes", 0)})
    return {"validation": validation.model_dump(mode="json")}


def _validation(state: ChatState) -> Validation:
    return Validation.model_validate(state.get("validation") or {})


def _claims(answer: str) -> list[str]:
    """Answer lines that state something: bullets and sentences, not headings or notices."""
    claims = []
    for line in answer.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or line.endswith(":") or len(line) < 30:
            continue
        claims.append(line)
    return claims


def _shown_with(cited: list[dict[str, Any]], hits: dict[str, dict[str, Any]]) -> set[str]:
    """Words a claim shows around what it quotes, which are no claim of the quote's: the
    source's name ("Market Rules, 4.5.1: …") and what the chunk before says to read it (its
    list's lead-in, the opening words of a sentence cut in two; ``retrieval.preceding``)."""
    shown = []
    for c in cited:
        hit = hits.get(str(c.get("chunk_id")), {})
        shown += [c.get("title") or "", c.get("clause") or "", hit.get("lead_in") or "",
                  hit.get("opening") or ""]
    return content_words(" ".join(shown))


async def validate_sources(state: ChatState, runtime: Rt) -> Update:
    """Is each claim supported by what it cites? A claim citing [n] must share at least half
    of its content words with quote n (the offline engine's claims are the quotes' own
    sentences; an LLM's paraphrase must stay close to them)."""
    validation = _validation(state)
    citations = {c["n"]: c for c in state.get("citations") or []}
    if not citations:
        return {}
    context = {h["chunk_id"]: h for h in state.get("hits") or []}
    issues: list[str] = []
    supported = total = 0
    with runtime.context.timed("validation"):
        for claim in _claims(state.get("answer", "")):
            numbers = [int(n) for n in _MARKER.findall(claim)]
            if not numbers:
                continue
            total += 1
            cited = [citations[n] for n in numbers if n in citations]
            words = content_words(_MARKER.sub("", claim)) - _shown_with(cited, context)
            quoted = content_words(" ".join(c["quote"] for c in cited))
            missing = [n for n in numbers if n not in citations]
            if missing:
                issues.append(f"cites [{missing[0]}], which is not a source of this answer")
            elif words and len(words & quoted) / len(words) < SUPPORT:
                issues.append(f"not supported by its citation: {claim[:80]}…")
            else:
                supported += 1
    validation.sources = validation.sources.model_copy(update={
        "grounded": not issues, "issues": issues,
        "confidence": round(supported / total, 3) if total else 1.0})
    return {"validation": validation.model_dump(mode="json")}


async def validate_tone(state: ChatState, runtime: Rt) -> Update:
    """The professional, corporate register of the spec; a rewrite keeps the original."""
    validation = _validation(state)
    original = state.get("answer", "")
    with runtime.context.timed("validation"):
        rewritten, adjustments = await runtime.context.engine.rewrite_tone(original)
    if rewritten == original:
        validation.tone = ToneValidation()
        return {"validation": validation.model_dump(mode="json")}
    validation.tone = ToneValidation(appropriate=False, original_text=original,
                                     adjustments=adjustments)
    return {"answer": rewritten, "validation": validation.model_dump(mode="json")}


async def guardrail_output(state: ChatState, runtime: Rt) -> Update:
    """Last gate: personal data that is not in the sources, a leaked system prompt, URLs the
    sources do not contain. PII and URLs are masked; a leak replaces the answer."""
    deps = runtime.context
    validation = _validation(state)
    answer = original = state.get("answer", "")
    quotes = " ".join(c["quote"] + " " + (c.get("url") or "")
                      for c in state.get("citations") or [])
    issues: list[str] = []
    with deps.timed("validation"):
        if _leaks_prompt(answer):
            issues.append("the answer repeated the system prompt")
            answer = SAFE_FALLBACK
        for kind, start, end in sorted(deps.guard.find_pii(answer), key=lambda f: -f[1]):
            if normalise(answer[start:end]) not in normalise(quotes):
                issues.append(f"masked {kind} not found in the sources")
                answer = f"{answer[:start]}<{kind}>{answer[end:]}"
        for url in set(_URL.findall(answer)):
            if url not in quotes:
                issues.append(f"removed a link the sources do not contain: {url}")
                answer = answer.replace(url, "[link removed]")
    validation.output_guardrail = OutputGuardrail(
        safe=not issues, issues=issues, original_text=original if answer != original else None)
    return {"answer": answer, "validation": validation.model_dump(mode="json")}


def _leaks_prompt(answer: str) -> bool:
    """Any 12-word run of the system prompt appearing in the answer."""
    words = SYSTEM_PROMPT.split()
    text = " ".join(answer.split())
    return any(" ".join(words[i:i + 12]) in text for i in range(0, max(len(words) - 12, 0), 6))
