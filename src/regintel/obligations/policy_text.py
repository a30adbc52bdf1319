"""A policy (or any audited text) as units the matrix matches obligations against: each
sentence of each line, list items included, with its page span, the chunk holding it and its
typed facts. Built from the stored chunks (pages.rebuild_pages), so a unit is verbatim."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from regintel.domain.coverage import TypedFact
from regintel.domain.documents import StoredChunk
from regintel.obligations.extract import lines_of
from regintel.obligations.facts import facts_of
from regintel.obligations.pages import Page, rebuild_pages
from regintel.sentences import sentence_spans

MIN_WORDS = 3  # shorter pieces ("Purpose.", "(a) None") say nothing a rule can be matched to


@dataclass(frozen=True)
class PolicyUnit:
    page: Page
    start: int
    end: int
    text: str
    facts: tuple[TypedFact, ...]
    lead: str | None  # the sentence a list item continues ("…must:"), for its context

    @property
    def context(self) -> str:
        """What is embedded: the unit, after its lead-in when it is a list item."""
        return f"{self.lead} {self.text}" if self.lead else self.text


def policy_units(chunks: Sequence[StoredChunk]) -> list[PolicyUnit]:
    units: list[PolicyUnit] = []
    for page in rebuild_pages(chunks):
        lead: str | None = None
        for line in lines_of(page.text):
            body = page.text[line.start:line.end]
            item = line.bracketed
            for s, e in sentence_spans(body):
                text = body[s:e]
                if len(text.split()) < MIN_WORDS:
                    continue
                units.append(PolicyUnit(page, line.start + s, line.start + e, text,
                                        facts_of(text), lead if item else None))
            stripped = body.rstrip()
            if stripped.endswith(":"):
                lead = stripped[-200:]
            elif not item:
                lead = None
    return units
