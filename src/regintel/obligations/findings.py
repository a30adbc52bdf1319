"""The matrix's proven contradictions as AuditFindings (domain/chat.py), the shape the chat
UI, the quote checks and the bench read: one finding per rule, for a conflicting row the engine
can show (proven_conflict), with the policy's contradicting words beside the rule's. Every
other row - an omission, an item left out, a contradiction it reads but cannot pin to one rule
- is a proposal in the review queue (triage.py), not a finding. Each finding quotes the rule
and the policy, both cited through the turn's CitationBook, so a quote that does not verify
drops its finding."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from uuid import UUID

from regintel.domain.chat import SEVERITY_ORDER, AuditFinding, Severity
from regintel.domain.coverage import CoverageMatrix, CoverageRow, ObligationRow
from regintel.domain.documents import ChunkHit, Document, StoredChunk
from regintel.obligations.matrix import rule_named
from regintel.obligations.quotes import cut_quote
from regintel.retrieval.evidence import CitationBook, verify


@dataclass(frozen=True)
class Found:
    """The findings, how many the cap held back, and the keys of the rows proven."""

    findings: list[AuditFinding]
    held_back: int
    proven: frozenset[str]


def proven_conflict(row: CoverageRow) -> bool:
    """A contradiction the engine can show: a typed fact the rule states otherwise, a duty to
    act at once put off, or a duty the rule's mutually closest sentence leaves to choice or
    makes conditional (on the development policies of four regulations, four readings of
    the last kind in five were planted contradictions) - unless the same sentence contradicts
    a rule of another part about as closely: which rule it breaks is then not shown."""
    return row.status == "conflicting" and bool(row.differing_facts) and not row.contested


def _unsure_set_aside(row: CoverageRow) -> bool:
    """A text's act set aside that stands only just close enough to the duty
    (set_aside.MARGIN): which duty it sets aside is the reader's to weigh - the sentence is
    flagged with its closest rules instead."""
    return row.uncertain and all(d.kind == "permission" for d in row.differing_facts)


@dataclass(frozen=True)
class Draft:
    row: CoverageRow
    clause: str | None
    rule_text: str
    consequence: str
    severity: Severity
    confidence: float


def item_clause(rule: str | None, label: str) -> str | None:
    if rule is None or not label.startswith("("):
        return rule
    return rule if rule.endswith(label) else f"{rule}{label}"


def draft_of(row: CoverageRow) -> Draft:
    """A conflicting row's finding: pinned to the item whose fact it contradicts, if any."""
    o = row.obligation
    said = "; ".join(d.statement for d in row.differing_facts)
    item = next((i for i in o.items if any(d.rule in i.text for d in row.differing_facts)), None)
    return Draft(row, item_clause(o.rule, item.label) if item else o.rule,
                 item.text if item else o.text, f"The policy contradicts the rule: {said}.",
                 row.severity or "Low", round(max(0.0, min(1.0, row.confidence)), 3))


def _rule_quote(o: ObligationRow, text: str, chunks: Mapping[UUID, StoredChunk]
                ) -> tuple[StoredChunk, str] | None:
    quote = cut_quote(text)
    for chunk_id in o.chunk_ids:
        chunk = chunks.get(chunk_id)
        if chunk is not None and verify(quote, chunk.text):
            return chunk, quote
    return None


def findings_of(matrix: CoverageMatrix, *, documents: Mapping[UUID, Document],
                chunks: Mapping[UUID, StoredChunk], book: CitationBook, max_findings: int,
                text: str | None = None) -> Found:
    """The proven contradictions of each regulation, surest first, at most ``max_findings``
    per regulation; also how many the cap held back.

    ``text``: the audited side is a pasted text (an email, a draft), no library document:
    its words are verified against the text itself and shown, not cited, and a duty it sets
    aside is a contradiction (set_aside.py reads the act it refuses)."""
    out: list[AuditFinding] = []
    proven: set[str] = set()
    held_back = 0
    for regulation_id in matrix.regulation_ids:
        drafts = sorted((draft_of(r) for r in matrix.rows
                         if r.obligation.document_id == regulation_id
                         and r.review != "not_applicable" and proven_conflict(r)
                         and (text is None or not _unsure_set_aside(r))),
                        key=lambda d: -d.confidence)
        kept = 0
        ruled: set[str] = set()
        for draft in drafts:
            # One finding per rule: its sentences and items are one obligation to the reader
            # (an article with unnumbered paragraphs is one clause however many sentences).
            rule = draft.row.obligation.rule or draft.row.obligation.text
            if rule in ruled:
                continue
            if kept >= max_findings:
                held_back += 1
                continue
            finding = (_finding(draft, documents, chunks, book) if text is None
                       else _text_finding(draft, documents, chunks, book, text))
            if finding is None:
                continue
            kept += 1
            ruled.add(rule)
            proven.add(draft.row.key)
            out.append(finding)
    # By regulation, as the user listed them, then gravest first.
    order = {regulation_id: n for n, regulation_id in enumerate(matrix.regulation_ids)}
    out.sort(key=lambda f: (order[f.target_doc_id], SEVERITY_ORDER.index(f.severity)))
    return Found(out, held_back, frozenset(proven))


def _finding(draft: Draft, documents: Mapping[UUID, Document],
             chunks: Mapping[UUID, StoredChunk], book: CitationBook) -> AuditFinding | None:
    o = draft.row.obligation
    document = documents[o.document_id]
    rule = _rule_quote(o, draft.rule_text, chunks)
    if rule is None:
        return None
    mark = book.checkpoint()
    numbers = [book.cite(ChunkHit.of(rule[0], document, 1.0), rule[1])]
    # A contradiction is shown with the words it contradicts, or not at all.
    shown = draft.row.policy_quotes[0] if draft.row.policy_quotes else None
    chunk = chunks.get(shown.chunk_id) if shown is not None else None
    policy = documents.get(shown.document_id) if shown is not None else None
    if shown is None or chunk is None or policy is None:
        book.rollback(mark)
        return None
    numbers.append(book.cite(ChunkHit.of(chunk, policy, shown.score), shown.quote))
    if None in numbers:
        book.rollback(mark)
        return None
    return AuditFinding(
        target_doc_id=o.document_id, target_doc_title=document.title,
        theme=(o.section or "").split(" › ")[-1] or None, kind="conflict",
        severity=draft.severity, consequence=draft.consequence, source_quote=shown.quote,
        target_quote=rule[1], target_clause=draft.clause, target_page=o.page,
        suggestion=draft.row.fix, confidence_score=draft.confidence,
        citations=[n for n in numbers if n is not None])


def _text_finding(draft: Draft, documents: Mapping[UUID, Document],
                  chunks: Mapping[UUID, StoredChunk], book: CitationBook,
                  text: str) -> AuditFinding | None:
    """A contradiction of a pasted text: the rule cited, the text's sentence shown when it
    is verbatim in the text (a contradiction is never shown without the words it
    contradicts)."""
    o = draft.row.obligation
    shown = draft.row.policy_quotes[0] if draft.row.policy_quotes else None
    if shown is None or not verify(shown.quote, text):
        return None
    rule = _rule_quote(o, draft.rule_text, chunks)
    if rule is None:
        return None
    document = documents[o.document_id]
    n = book.cite(ChunkHit.of(rule[0], document, 1.0), rule[1])
    if n is None:
        return None
    return AuditFinding(
        target_doc_id=o.document_id, target_doc_title=document.title,
        theme=(o.section or "").split(" › ")[-1] or None, kind="conflict",
        severity=draft.severity, consequence=_as_text(draft.consequence),
        source_quote=shown.quote, target_quote=rule[1], target_clause=draft.clause,
        target_page=o.page, suggestion=_text_fix(draft.row),
        confidence_score=draft.confidence, citations=[n])


def _text_fix(row: CoverageRow) -> str:
    """What to do about a text: not to act as it proposes, when it sets a duty aside; else
    the matrix's fix, said of the text."""
    diffs = row.differing_facts
    if diffs and all(d.kind == "permission" for d in diffs):
        rule = rule_named(row.obligation.rule)
        return (f"Do not act as the text proposes (\"{diffs[0].policy}\"): {rule} requires "
                f"\"{diffs[0].rule}\". Correct the text before it is sent or acted on.")
    return _as_text(row.fix)


def _as_text(said: str) -> str:
    """The matrix's wording of a policy finding, said of a pasted text."""
    return said.replace("The policy", "The text").replace("the policy", "the text")


def rules_checked(matrix: CoverageMatrix, titles: Mapping[UUID, str]) -> list[str]:
    return list(dict.fromkeys(f"{titles.get(r.obligation.document_id, '')} {r.obligation.rule}"
                              .strip() for r in matrix.rows if r.obligation.rule))


