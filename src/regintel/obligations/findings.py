"""The matrix's clear gaps as AuditFindings (domain/chat.py), the shape the chat UI, the
quote checks and the bench read: one finding per rule, for a conflicting row (shown with the
policy's contradicting words) or for the one item a partial row's list leaves out (its clause
is the item's: "4.3.1(b)"); other non-covered rows stay in the matrix. Each quotes the rule
and, where the policy says something close, the policy - both cited through the turn's
CitationBook, so a quote that does not verify drops its finding."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal
from uuid import UUID

from regintel.chat.evidence import CitationBook, verify
from regintel.domain.chat import MAX_QUOTE_CHARS, SEVERITY_ORDER, AuditFinding, Severity
from regintel.domain.coverage import CoverageMatrix, CoverageRow, ObligationRow
from regintel.domain.documents import ChunkHit, Document, StoredChunk
from regintel.obligations.matrix import part_of, rule_named

MAX_ITEM_FINDINGS = 3  # a row missing more items is one finding naming them all
MIN_LIST = 3
MAX_CLEAR_MISSING = 1
STANDS_OUT = 0.15  # an item this much further from the policy than the next one stands out


@dataclass(frozen=True)
class Found:
    """The findings, how many drafts the caps held back, and the keys of the rows proven."""

    findings: list[AuditFinding]
    held_back: int
    proven: frozenset[str]


def proven_conflict(row: CoverageRow) -> bool:
    """A contradiction the engine can show of a policy: a typed fact the rule states
    otherwise, or a duty to act at once put off. A duty the policy leaves to someone's choice
    or makes conditional is read, not proven (on the development policies such readings
    were as often a related sentence as the duty set aside): it heads the review queue."""
    return any(d.kind != "permission" for d in row.differing_facts)


@dataclass(frozen=True)
class Draft:
    row: CoverageRow
    kind: Literal["gap", "conflict"]
    clause: str | None
    rule_text: str
    consequence: str
    severity: Severity
    confidence: float


def _cut(text: str) -> str:
    text = " ".join(text.split())
    if len(text) <= MAX_QUOTE_CHARS:
        return text
    cut = text[:MAX_QUOTE_CHARS]
    return cut[:cut.rfind(" ")] if " " in cut else cut


def item_clause(rule: str | None, label: str) -> str | None:
    if rule is None or not label.startswith("("):
        return rule
    return rule if rule.endswith(label) else f"{rule}{label}"


def part_coverage(matrix: CoverageMatrix) -> dict[str, float]:
    """Per part, the share of its rows the policy meets at least in part."""
    totals: dict[str, list[int]] = {}
    for row in matrix.rows:
        counts = totals.setdefault(part_of(row.obligation), [0, 0])
        counts[0] += row.status != "missing"
        counts[1] += 1
    return {part: met / total for part, (met, total) in totals.items()}


def clear_omission(row: CoverageRow) -> bool:
    """An omission clear enough to report: one item left out of a list (of at least
    MIN_LIST items) whose other items the policy restates, or an item that stands out below
    all its siblings (row.confidence carries how far, see matrix._row). A rule the policy
    says nothing close to is only listed in the matrix: on the development policies of three
    regulations such findings were right about one time in ten (closeness alone cannot tell
    a rule the policy omits from one it words differently)."""
    return row.status == "partial" and len(row.obligation.items) >= MIN_LIST and (
        len(row.missing_items) <= MAX_CLEAR_MISSING or row.confidence - 0.5 >= STANDS_OUT)


def drafts_of(row: CoverageRow, met: float = 0.5) -> list[Draft]:
    """``met``: the share of the row's part the policy meets - an omission among rules the
    policy otherwise follows is surer than one in a part it barely touches."""
    o = row.obligation
    severity: Severity = row.severity or "Low"
    confidence = round(max(0.0, min(1.0, (met + 1.0 - row.score) / 2 if row.status == "missing"
                                     else row.confidence)), 3)
    if row.status == "conflicting":
        said = "; ".join(d.statement for d in row.differing_facts)
        item = next((i for i in o.items if any(d.rule in i.text for d in row.differing_facts)),
                    None)
        return [Draft(row, "conflict", item_clause(o.rule, item.label) if item else o.rule,
                      item.text if item else o.text,
                      f"The policy contradicts the rule: {said}.", severity, confidence)]
    if row.status == "partial" and (len(row.missing_items) <= MAX_ITEM_FINDINGS
                                    or row.confidence - 0.5 >= STANDS_OUT):
        out = []
        for missing in row.missing_items:
            item = next(i for i in o.items if f"{i.label} {i.text}".strip() == missing)
            out.append(Draft(row, "gap", item_clause(o.rule, item.label), item.text,
                             f"The policy meets part of the rule but not its item {item.label}.",
                             severity, confidence))
        return out
    if row.status == "partial":
        return [Draft(row, "gap", o.rule, o.lead_in or o.text,
                      f"The policy leaves out {len(row.missing_items)} of the rule's "
                      f"{len(o.items)} items.", severity, confidence)]
    return [Draft(row, "gap", o.rule, o.lead_in or o.text,
                  "The policy has no clause that meets this obligation.", severity, confidence)]


def _rule_quote(o: ObligationRow, text: str, chunks: Mapping[UUID, StoredChunk]
                ) -> tuple[StoredChunk, str] | None:
    quote = _cut(text)
    for chunk_id in o.chunk_ids:
        chunk = chunks.get(chunk_id)
        if chunk is not None and verify(quote, chunk.text):
            return chunk, quote
    return None


def findings_of(matrix: CoverageMatrix, *, documents: Mapping[UUID, Document],
                chunks: Mapping[UUID, StoredChunk], book: CitationBook,
                max_gaps: int, max_findings: int,
                text: str | None = None) -> Found:
    """The findings of each regulation, gravest first (conflicts, then partial rows, then
    missing ones, by severity and confidence), at most ``max_findings`` per regulation of
    which at most ``max_gaps`` omissions; also how many drafts the caps held back.

    ``text``: the audited side is a pasted text (an email, a draft), no library document.
    Only its contradictions are findings - a text is not meant to cover a regulation, so
    what it leaves out is no gap - and its words are verified against the text itself and
    shown, not cited."""
    out: list[AuditFinding] = []
    proven: set[str] = set()
    held_back = 0
    for regulation_id in matrix.regulation_ids:
        met = part_coverage(matrix)
        drafts = [d for r in matrix.rows if r.obligation.document_id == regulation_id
                  and r.review != "not_applicable"
                  and ((r.status == "conflicting" and (text is not None or proven_conflict(r)))
                       or (text is None and clear_omission(r)))
                  for d in drafts_of(r, met[part_of(r.obligation)])]
        # Contradictions first (a fact read against a fact is surer), then omissions - of a
        # rule or of an item - by confidence.
        drafts.sort(key=lambda d: (d.kind != "conflict", -d.confidence))
        kept = gaps = 0
        ruled: set[str] = set()
        for draft in drafts:
            # One finding per rule: its sentences and items are one obligation to the reader
            # (an article with unnumbered paragraphs is one clause however many sentences).
            rule = draft.row.obligation.rule or draft.row.obligation.text
            if rule in ruled:
                continue
            if kept >= max_findings or (draft.kind == "gap" and gaps >= max_gaps):
                held_back += 1
                continue
            finding = (_finding(draft, documents, chunks, book) if text is None
                       else _text_finding(draft, documents, chunks, book, text))
            if finding is None:
                continue
            kept += 1
            gaps += draft.kind == "gap"
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
    source_quote = None
    shown = draft.row.policy_quotes[0] if draft.row.policy_quotes and (
        draft.kind == "conflict" or draft.row.status == "partial") else None
    if shown is not None:
        chunk = chunks.get(shown.chunk_id)
        policy = documents.get(shown.document_id)
        if chunk is None or policy is None:
            book.rollback(mark)
            return None
        numbers.append(book.cite(ChunkHit.of(chunk, policy, shown.score), shown.quote))
        source_quote = shown.quote
    elif draft.kind == "conflict":  # a contradiction is shown with the words it contradicts
        book.rollback(mark)
        return None
    if None in numbers:
        book.rollback(mark)
        return None
    return AuditFinding(
        target_doc_id=o.document_id, target_doc_title=document.title,
        theme=(o.section or "").split(" › ")[-1] or None, kind=draft.kind,
        severity=draft.severity, consequence=draft.consequence, source_quote=source_quote,
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
    if draft.kind != "conflict" or shown is None or not verify(shown.quote, text):
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


