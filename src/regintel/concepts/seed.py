"""The seed graph: concepts defined by the GDPR (Article 4) and the AI Act (Article 3), the
articles as ``:Section`` nodes, and the edges between them.

Every write goes through the resolver and the write service (so through the ingress guard);
seeding twice changes nothing but ``updated_at``. A definition the guard refuses (a false
positive of the PII detector, say) is counted and skipped, never forced in."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from regintel.concepts.graph import GraphWriteService
from regintel.concepts.guard import GraphWriteRefused
from regintel.concepts.regulations import Regulation, definitions, load_bundled
from regintel.concepts.relations import ConceptText, infer_relations
from regintel.concepts.resolver import CanonicalConceptResolver
from regintel.domain.concepts import CONCEPT, SECTION, CapturedConcept, code, norm_label

log = logging.getLogger(__name__)

MAX_MENTIONS = 8
SEED_SOURCE = "seed"


@dataclass
class SeedReport:
    concepts: int = 0
    sections: int = 0
    edges: int = 0
    refused: int = 0
    regulations: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {"regulations": self.regulations, "concepts": self.concepts,
                "sections": self.sections, "edges": self.edges, "refused": self.refused}


class SeedLoader:
    def __init__(self, writer: GraphWriteService, resolver: CanonicalConceptResolver) -> None:
        self.writer = writer
        self.resolver = resolver

    async def seed(self, shared_data_dir: Path, *, only: Sequence[str] = (),
                   mentions: bool = True) -> SeedReport:
        """``only``: regulation codes (``gdpr``, ``ai-act``); all when empty."""
        report = SeedReport()
        for regulation in await load_bundled(shared_data_dir):
            if only and regulation.code not in only:
                continue
            await self.seed_regulation(regulation, report, mentions=mentions)
            report.regulations.append(regulation.code)
        log.info("seeded the concept graph: %s", report.as_dict())
        return report

    async def seed_regulation(self, reg: Regulation, report: SeedReport, *,
                              mentions: bool = True) -> None:
        for article in reg.articles:
            try:
                await self.writer.upsert_node(SECTION, reg.section_key(article.number), {
                    "document": reg.title, "clause": f"Article {article.number}",
                    "title": article.title[:300], "url": reg.article_url(article.number),
                    "jurisdiction": reg.jurisdiction, "source": SEED_SOURCE})
                report.sections += 1
            except GraphWriteRefused:
                report.refused += 1
        defined: list[ConceptText] = []
        for d in definitions(reg):
            concept = CapturedConcept(domain=reg.domain, kind=code(d.term),
                                      jurisdiction=reg.jurisdiction, prefLabel=d.term,
                                      definition=_first_clause(d.definition),
                                      sourceUrls=[reg.article_url(reg.definitions_article)])
            try:
                ref = await self.resolver.resolve_or_create(concept.normalised())
                await self.writer.link(CONCEPT, ref.id, "DEFINED_IN", SECTION,
                                       reg.section_key(reg.definitions_article),
                                       {"clause": f"Article {reg.definitions_article}"
                                                  f"({d.number})", "source": SEED_SOURCE})
            except GraphWriteRefused:
                report.refused += 1
                continue
            report.concepts += 1
            report.edges += 1
            defined.append(ConceptText(ref.id, d.term, d.definition))
        for item in defined:
            report.edges += await self._relate(item, defined, report)
            if mentions:
                report.edges += await self._mentions(reg, item, report)

    async def _relate(self, concept: ConceptText, others: Sequence[ConceptText],
                      report: SeedReport) -> int:
        made = 0
        for rel, other in infer_relations(concept, others):
            try:
                await self.writer.link(CONCEPT, concept.key, rel, CONCEPT, other,
                                       {"source": SEED_SOURCE})
                if rel == "BROADER":  # SKOS keeps both directions explicit
                    await self.writer.link(CONCEPT, other, "NARROWER", CONCEPT, concept.key,
                                           {"source": SEED_SOURCE})
                    made += 1
                made += 1
            except GraphWriteRefused:
                report.refused += 1
        return made

    async def _mentions(self, reg: Regulation, concept: ConceptText,
                        report: SeedReport) -> int:
        """The articles that use the term most (the definitions article aside)."""
        label = norm_label(concept.label)
        if len(label) < 4:
            return 0
        pattern = re.compile(rf"\b{re.escape(label)}(?:e?s)?\b")
        counts = []
        for article in reg.articles:
            if article.number == reg.definitions_article:
                continue
            n = len(pattern.findall(norm_label(article.text)))
            if n:
                counts.append((-n, int(article.number), article.number))
        made = 0
        for _n, _order, number in sorted(counts)[:MAX_MENTIONS]:
            try:
                await self.writer.link(CONCEPT, concept.key, "MENTIONED_IN", SECTION,
                                       reg.section_key(number), {"source": SEED_SOURCE})
                made += 1
            except GraphWriteRefused:
                report.refused += 1
        return made


def _first_clause(text: str) -> str:
    """A definition's first clause: what the conversation paragraph can show in one line."""
    text = " ".join(text.split())
    cut = re.search(r";\s", text)
    text = text[: cut.start()] if cut else text.rstrip(";.")
    return text[:1500]
