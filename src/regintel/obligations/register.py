"""A regulation's obligation register, built from its stored chunks: every obligation sentence
(extract) with its rule number (rules), section path and page, and the chunks it came from.
Ids are derived from the document and the sentence's place, so building again gives the same
rows. ``EXTRACTOR_VERSION`` is stored with each register: a register built by an older
extractor is built again on its next use (registers.Registers)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from uuid import uuid5

from regintel.domain.coverage import ObligationRow
from regintel.domain.documents import Document, StoredChunk, has_pages
from regintel.obligations.extract import obligations_in
from regintel.obligations.pages import rebuild_pages
from regintel.obligations.rules import RuleNumbers

# Raise when extraction changes what it finds: stored registers are then rebuilt on use.
EXTRACTOR_VERSION = 7
# Commentary a rulebook sets apart from its rules by name ("9.1.2.Guidance.5", a section
# "Guidance", "Explanatory note"): its "must" restates or explains a rule, it binds no one.
_COMMENTARY = re.compile(r"\b(?:guidance|explanatory notes?|commentary)\b", re.IGNORECASE)


def _commentary(rule: str | None, section: str | None) -> bool:
    return bool(_COMMENTARY.search(rule or "")) or bool(
        section and _COMMENTARY.search(section.split(" › ")[-1]))


def build_register(document: Document, chunks: Sequence[StoredChunk]) -> list[ObligationRow]:
    """The obligations of ``document``, in document order."""
    rows: list[ObligationRow] = []
    carry: str | None = None
    paged = has_pages(document.mime_type)
    for page in rebuild_pages(chunks):
        numbers = RuleNumbers(page.text, carry)
        carry = numbers.last
        for found in obligations_in(page.text):
            chunk = page.chunk_at(found.start)
            section = chunk.section_at(found.start - chunk.char_start) if chunk else None
            rule = numbers.at(found.start) or (chunk.clause if chunk else None)
            rows.append(ObligationRow(
                id=uuid5(document.id, f"{page.number}:{found.start}"),
                document_id=document.id, document_title=document.title, ordinal=len(rows),
                rule=rule, section=section, page=page.number if paged else None,
                text=page.text[found.start:found.sentence_end].strip(),
                lead_in=found.lead_in(page.text), items=found.obligation_items(page.text),
                conditions=found.conditions, actor=found.actor, modal=found.modal,
                strength="recommendation" if _commentary(rule, section) else found.strength,
                facts=found.facts,
                chunk_ids=page.chunks_of(found.start, found.end)))
    return rows
