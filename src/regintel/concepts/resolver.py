"""CanonicalConceptResolver: one node per concept, however many conversations name it.

Resolution order: the canonical key ``(domain, kind, jurisdiction)``; else a concept of the
same domain and jurisdiction that already carries one of the labels (the model called the
same thing by another ``kind``); else create. Creation is a ``MERGE`` on the canonical key,
so concurrent captures of one concept — in this process or in others — leave one node; a
per-process lock per ``(domain, jurisdiction)`` also serialises the read-then-create of the
label path here. New aliases are appended by one atomic list update, so concurrent enrichers
never drop each other's labels."""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict

from regintel.concepts.graph import GraphClient, GraphWriteService
from regintel.domain.concepts import (
    CONCEPT,
    CapturedConcept,
    ConceptRef,
    concept_label,
    norm_label,
)
from regintel.ports.graph import GraphNode, GraphValue

log = logging.getLogger(__name__)


class CanonicalConceptResolver:
    def __init__(self, client: GraphClient, writer: GraphWriteService, *,
                 source: str = "capture") -> None:
        self.client = client
        self.writer = writer
        self.source = source
        self._locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        # Bumped on every write that adds a concept or label: vocabulary caches compare it.
        self.generation = 0

    async def resolve_or_create(self, concept: CapturedConcept) -> ConceptRef:
        """``concept`` as normalised by ``CapturedConcept.normalised``."""
        async with self._locks[f"{concept.domain}:{concept.jurisdiction}"]:
            existing = await self._find(concept)
            if existing is not None:
                await self._enrich(existing, concept)
                return ConceptRef(id=existing.key, labels=list(existing.labels))
            return await self._create(concept)

    async def _find(self, concept: CapturedConcept) -> GraphNode | None:
        node = await self.client.concept_by_key(concept.domain, concept.kind,
                                                concept.jurisdiction)
        if node is not None:
            return node
        matches = await self.client.concepts_by_label(
            [concept.prefLabel, *concept.altLabels], domain=concept.domain,
            jurisdiction=concept.jurisdiction)
        pref = norm_label(concept.prefLabel)
        # A preferred-label match beats an alias match; then the oldest node.
        matches.sort(key=lambda n: (norm_label(str(n.properties.get("prefLabel", ""))) != pref,
                                    int(str(n.properties.get("created_at", 0)))))
        return matches[0] if matches else None

    def _labels_ok(self, key: str, prop: str, values: list[str]) -> list[str]:
        return self.writer.guard.allowed_items(CONCEPT, key, prop, values)

    async def _create(self, concept: CapturedConcept) -> ConceptRef:
        key = concept.key
        alts = self._labels_ok(key, "altLabels", concept.altLabels)
        urls = self._labels_ok(key, "sourceUrls", concept.sourceUrls)
        props: dict[str, GraphValue] = {
            "domain": concept.domain, "kind": concept.kind,
            "jurisdiction": concept.jurisdiction, "prefLabel": concept.prefLabel,
            "altLabels": alts, "sourceUrls": urls, "source": self.source,
            "labelsNorm": sorted({norm_label(x) for x in [concept.prefLabel, *alts]}),
        }
        if concept.definition and self._labels_ok(key, "definition", [concept.definition]):
            props["definition"] = concept.definition
        specific = concept_label(concept.domain)
        extra = (specific,) if specific != CONCEPT else ()
        node = await self.writer.upsert_node(CONCEPT, key, props, extra_labels=extra,
                                             create_only=True)
        created = node.properties.get("created_at") == node.properties.get("updated_at")
        self.generation += 1
        # Another writer may have created it between our read and our MERGE: then its
        # properties stand, and ours are added the way any reuse adds them.
        await self._enrich(node, concept)
        return ConceptRef(id=node.key, labels=list(node.labels), created=created)

    async def _enrich(self, node: GraphNode, concept: CapturedConcept) -> None:
        """Add labels the node lacks (the user's phrasing is how the next user will ask) and
        a definition or source the node does not have yet; never overwrite curated text."""
        known = {str(x) for x in _as_list(node.properties.get("labelsNorm"))}
        new = [x for x in [concept.prefLabel, *concept.altLabels] if norm_label(x) not in known
               and norm_label(x) != norm_label(str(node.properties.get("prefLabel", "")))]
        new = self._labels_ok(node.key, "altLabels", new)
        if new:
            self.generation += 1
            await self.writer.append_unique(CONCEPT, node.key, "altLabels", new)
            await self.writer.append_unique(CONCEPT, node.key, "labelsNorm",
                                            sorted({norm_label(x) for x in new}))
        urls = [u for u in concept.sourceUrls
                if u not in {str(x) for x in _as_list(node.properties.get("sourceUrls"))}]
        urls = self._labels_ok(node.key, "sourceUrls", urls)
        if urls:
            await self.writer.append_unique(CONCEPT, node.key, "sourceUrls", urls)
        if concept.definition and not node.properties.get("definition") and \
                self._labels_ok(node.key, "definition", [concept.definition]):
            await self.writer.upsert_node(CONCEPT, node.key, {"definition": concept.definition})


def _as_list(value: object) -> list[object]:
    return list(value) if isinstance(value, list | tuple) else []
