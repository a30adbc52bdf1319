"""The ``capture_concepts`` tool and its handler (handleConceptMetadataFromMainChat, spec §5.2).

Concept capture is additive: whatever fails here is logged and the turn goes on. A malformed
payload captures nothing; one concept's failure (graph down, guard refusal) skips that
concept only; a failed enqueue leaves the concept sparse until the next mention."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from pydantic import BaseModel, ValidationError

from regintel.concepts.resolver import CanonicalConceptResolver
from regintel.domain.concepts import CapturedConcept

log = logging.getLogger(__name__)

CAPTURE_CONCEPTS_TOOL = "capture_concepts"
MAX_PAYLOAD_ITEMS = 50
CAPTURE_CONCEPTS_SCHEMA: dict[str, Any] = {
    "name": CAPTURE_CONCEPTS_TOOL,
    "description": "Capture SKOS-like regulatory concepts mentioned in this turn.",
    "parameters": {
        "type": "object",
        "properties": {
            "concepts": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "domain": {"type": "string",
                                   "description": 'e.g. "AML", "DATA_PROTECTION", "AI", "TAX"'},
                        "kind": {"type": "string",
                                 "description": 'e.g. "CUSTOMER_DUE_DILIGENCE", "VAT"'},
                        "jurisdiction": {"type": "string",
                                         "description": 'e.g. "EU", "ADGM", "IE", "UK"'},
                        "prefLabel": {"type": "string"},
                        "altLabels": {"type": "array", "items": {"type": "string"}},
                        "definition": {"type": "string"},
                        "sourceUrls": {"type": "array",
                                       "items": {"type": "string", "format": "uri"}},
                    },
                    "required": ["domain", "kind", "jurisdiction", "prefLabel"],
                },
            },
        },
        "required": ["concepts"],
    },
}
# The prompt lines the spec (§4.3) asks the main chat's system prompt to carry.
CAPTURE_CONCEPTS_INSTRUCTIONS = (
    "In addition to answering the user, you must call the `capture_concepts` tool once per "
    "turn with any important tax, welfare, pension, or regulatory concepts you detect. "
    "Prefer a small number of important concepts (usually 1–5 per turn). Do not list every "
    "noun phrase. Use short, human-readable `prefLabel` values and reasonable `definition` "
    "texts. Never include names, e-mail addresses, account or conversation identifiers, or "
    "the user's own situation: concepts describe general regulation.")


class EnrichmentRequest(BaseModel):
    """What the enrichment job needs (the spec's ``enqueueIngestionJob`` input)."""

    conceptId: str  # the spec's field names
    domain: str
    kind: str
    jurisdiction: str
    sourceUrls: list[str] = []


Enqueue = Callable[[EnrichmentRequest], Awaitable[None]]
DetailCheck = Callable[[str], Awaitable[bool]]


@dataclass
class CaptureResult:
    referencedNodeIds: list[str] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    enqueued: list[str] = field(default_factory=list)
    failures: int = 0


class ConceptCaptureHandler:
    def __init__(self, resolver: CanonicalConceptResolver, has_useful_detail: DetailCheck,
                 enqueue: Enqueue, *, max_concepts: int = 10,
                 enqueue_memo_s: float = 600.0) -> None:
        self.resolver = resolver
        self.has_useful_detail = has_useful_detail
        self.enqueue = enqueue
        self.max_concepts = max_concepts
        self.enqueue_memo_s = enqueue_memo_s
        # Concept id → when we last enqueued it: a concept mentioned every turn is enriched
        # once, not once per turn (the job is idempotent, so a lost memo only costs work).
        self._recent: dict[str, float] = {}

    async def handle(self, args_json: object, *, tenant_id: UUID | None = None,
                     conversation_id: UUID | None = None) -> CaptureResult:
        """Tenant and conversation ids only label log lines; they never reach the graph."""
        where = f"tenant={tenant_id} conversation={conversation_id}"
        result = CaptureResult()
        for raw in _parse(args_json, where)[: self.max_concepts]:
            try:
                concept = raw.normalised()
                ref = await self.resolver.resolve_or_create(concept)
            except Exception as exc:  # one concept's failure must not lose the others
                result.failures += 1
                log.warning("capture_concepts: concept skipped (%s: %s) [%s]",
                            type(exc).__name__, exc, where)
                continue
            if ref.id not in result.referencedNodeIds:
                result.referencedNodeIds.append(ref.id)
            if ref.created:
                result.created.append(ref.id)
            if await self._maybe_enqueue(ref.id, concept.domain, concept.kind,
                                         concept.jurisdiction, concept.sourceUrls, where):
                result.enqueued.append(ref.id)
        return result

    async def _maybe_enqueue(self, concept_id: str, domain: str, kind: str, jurisdiction: str,
                             urls: list[str], where: str) -> bool:
        now = time.monotonic()
        if now - self._recent.get(concept_id, -1e12) < self.enqueue_memo_s:
            return False
        try:
            if await self.has_useful_detail(concept_id):
                return False
            await self.enqueue(EnrichmentRequest(conceptId=concept_id, domain=domain, kind=kind,
                                                 jurisdiction=jurisdiction, sourceUrls=urls))
        except Exception as exc:  # enrichment is best effort; the answer never waits on it
            log.warning("capture_concepts: enrichment of %s not enqueued (%s: %s) [%s]",
                        concept_id, type(exc).__name__, exc, where)
            return False
        if len(self._recent) > 10_000:  # keep the memo bounded in a long-lived process
            self._recent = {k: t for k, t in self._recent.items()
                            if now - t < self.enqueue_memo_s}
        self._recent[concept_id] = now
        return True


def _parse(args_json: object, where: str) -> list[CapturedConcept]:
    """The payload's valid concepts. A payload that is not ``{"concepts": [...]}`` is skipped
    whole; an invalid item is skipped alone (the others are still worth capturing)."""
    try:
        data = json.loads(args_json) if isinstance(args_json, str | bytes) else args_json
        items = data["concepts"] if isinstance(data, dict) else None
        if not isinstance(items, list):
            raise TypeError("expected an object with a 'concepts' array")
    except (ValueError, TypeError, KeyError) as exc:
        log.warning("capture_concepts: malformed payload skipped (%s: %s) [%s]",
                    type(exc).__name__, str(exc)[:120], where)
        return []
    concepts = []
    for i, item in enumerate(items[:MAX_PAYLOAD_ITEMS]):
        try:
            concepts.append(CapturedConcept.model_validate(item))
        except ValidationError as exc:
            first = exc.errors()[0]
            log.warning("capture_concepts: concept %d malformed, skipped (%s at %s) [%s]", i,
                        first["type"], ".".join(map(str, first["loc"])), where)
    return concepts
