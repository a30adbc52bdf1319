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
MAX_HEADING_WORDS = 8  # a short line that ends no sentence ("2 BEST EXECUTION") titles a section
_ENDS_SENTENCE = (".", ":", ";", ",", "!", "?")


@dataclass(frozen=True)
class PolicyUnit:
    page: Page
    start: int
    end: int
    text: str
    facts: tuple[TypedFact, ...]
    lead: str | None  # the sentence a list item continues ("…must:"), for its context
    heading: str | None = None  # the title of the policy section it stands in

    @property
    def context(self) -> str:
        """What is embedded: the unit after its section's title and, when it is a list item,
        its lead-in - a policy sentence often names its subject only there ("Breaches: we
        notify the authority within…")."""
        lead = f"{self.lead} {self.text}" if self.lead else self.text
        return f"{self.heading}: {lead}" if self.heading else lead


def policy_units(chunks: Sequence[StoredChunk]) -> list[PolicyUnit]:
    units: list[PolicyUnit] = []
    heading: str | None = None
    pages = rebuild_pages(chunks)
    first = pages[0] if pages else None
    for page in pages:
        lead: str | None = None
        for line in lines_of(page.text):
            body = page.text[line.start:line.end]
            item = line.bracketed
            stored = _stored_heading(page, line.start)
            if stored is not None:
                heading = stored
            elif not item and len(body.split()) <= MAX_HEADING_WORDS and \
                    not body.rstrip().endswith(_ENDS_SENTENCE):
                # The document's own title opens it: it says what the whole policy is about,
                # nothing of the clauses under it, and must not pull each towards its words.
                heading = body.strip() if units or line.start > 0 or page is not first else None
                continue
            for s, e in sentence_spans(body):
                text = body[s:e]
                if len(text.split()) < MIN_WORDS:
                    continue
                units.append(PolicyUnit(page, line.start + s, line.start + e, text,
                                        facts_of(text), lead if item else None, heading))
            stripped = body.rstrip()
            if stripped.endswith(":"):
                lead = stripped[-200:]
            elif not item:
                lead = None
    return units


def _stored_heading(page: Page, offset: int) -> str | None:
    """The last title of the section path ingestion recorded at ``offset``, if any."""
    chunk = page.chunk_at(offset)
    path = chunk.section_at(offset - chunk.char_start) if chunk is not None else None
    return path.split(" › ")[-1] if path and " › " in path else None
