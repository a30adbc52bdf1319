"""The offline audit (policypal spec, action 4): a policy or a pasted text checked against
1–5 regulations without a model. Policy mode follows the spec's steps - stratified sample,
themes, per-theme retrieval in every target - then matches each obligation in the retrieved
evidence, and each obligation worded like one of the policy's statements of fact wherever it
sits in the target (matching.anchored), to the policy's closest clauses (by vectors, and by
words): no close clause is a gap, a close clause that says otherwise (a shorter period, a
later deadline or due date, a rarer or open-ended review, a higher threshold, "may" for
"must", approval for independence) is a conflict; and a rule's list answered by a policy
list that leaves one of its items out is a gap for that item (lists.omitted). Every quote
is cut from a stored chunk and cited through the turn's CitationBook; a finding whose
quotes do not verify is dropped."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, replace
from uuid import UUID

import numpy as np

from regintel.chat.evidence import CitationBook, verify
from regintel.chat.offline import (
    alignment,
    audit_units,
    drafts,
    glossary,
    lists,
    matching,
    scope,
)
from regintel.chat.offline import obligations as obligation_rules
from regintel.chat.offline.claims import text_audit
from regintel.chat.offline.report import overall_status, summary
from regintel.chat.offline.segments import Unit, citable, page_texts, segment
from regintel.chat.offline.unit_lists import group_lists, in_its_list
from regintel.chat.offline.unit_vectors import UnitVectors
from regintel.domain.chat import MAX_QUOTE_CHARS, SEVERITY_ORDER, AuditFinding, AuditResult
from regintel.domain.documents import ChunkHit, Document, StoredChunk
from regintel.errors import InvalidRequest
from regintel.ports.embedder import Embedder, Vectors
from regintel.ports.library import ChunkIndex
from regintel.retrieval.hybrid import HybridRetriever
from regintel.retrieval.strategies import by_theme, stratify

MAX_TARGETS = 5
# The evidence read per target: about MAX_THEMES × PER_THEME chunks. The spec's 2–3 chunks
# per theme reach too few of a rulebook's obligations for an audit (an omission is found
# only where evidence was read, see matching.candidates); 24 themes × 6 keeps 2 targets near
# 300 chunks, and obligations are then capped per target. A policy with more headings than
# MAX_THEMES has each of them searched (up to MAX_QUERIES) with fewer chunks each, not some
# of them left out: on the development policy, a budget of 12 themes spread over all its 23
# headings found more planted gaps than its 12 sampled headings did (see ``per_theme``).
MAX_THEMES = 24
PER_THEME = 6
MIN_PER_THEME = 3
# Bounds the searches (each theme costs one per target). Every heading of a long policy is
# searched: at 48, 11 of a 17-page development policy's 59 headings (Godwit: its reporting,
# training and audit sections, the last in the manual) were never searched, and the
# omissions there never read; at 64 its audit takes no longer (11-14 s).
MAX_QUERIES = 64
# Per target: bounds the embedding work (and so the audit's time). 350 until the rule of a
# relevant chunk in a long section was read too (matching.candidates); with it, 350 left out
# a planted omission on a development policy that 450 keeps.
MAX_OBLIGATIONS = 450
# Per target: the obligations read in rule sections no theme reached (matching.unreached);
# the development policies leave 22-95 per target (AML and GEN); this bounds an odd case.
MAX_UNREACHED = 150
# Per target: at most MAX_GAPS omissions, and MAX_FINDINGS findings in all. A contradiction
# is read from a fact the policy states (one finding per statement and kind, see
# alignment._distinct), so they are few and sure; omissions are many and less sure, and a
# shared cap let them crowd out, or be crowded out by, the contradictions. Measured in the
# sixteenth session on the four development policies: the caps hold back 2-21 drafts per
# rulebook, among them one planted gap (Oryx 4.8.1, a Low omission ranked 38th of 40);
# without caps Oryx finds 13 of 13 but at precision 0.255 (0.333 capped), Sandgrouse 0.293
# (0.364), Kestrel 0.226 (0.375), Heron 0.152 (0.161), a lower F2 on each. The caps stay, and
# the summary says how many findings they left out.
MAX_GAPS = 25
MAX_FINDINGS = 40


@dataclass(frozen=True)
class AuditInputs:
    tenant_id: UUID
    targets: Sequence[Document]  # 1–5 target (regulation) documents
    source_document: Document | None  # policy mode when set
    source_text: str | None  # text mode (pasted email/marketing text, < 1,000 words)


async def run_audit(inputs: AuditInputs, *, retriever: HybridRetriever, index: ChunkIndex,
                    embedder: Embedder, book: CitationBook,
                    thresholds: drafts.Thresholds = drafts.SHIPPED,
                    memo: UnitVectors | None = None) -> AuditResult:
    """``thresholds``: the similarity thresholds of policy mode (tuning tries others);
    ``memo``: the targets' unit vectors kept from earlier audits (None: embed them all)."""
    if not 1 <= len(inputs.targets) <= MAX_TARGETS:
        raise InvalidRequest(f"an audit checks against 1 to {MAX_TARGETS} regulations "
                             f"({len(inputs.targets)} given)")
    if inputs.source_document is not None:
        return await _policy_audit(inputs, inputs.source_document, retriever=retriever,
                                   index=index, embedder=embedder, book=book,
                                   thresholds=thresholds, memo=memo)
    if inputs.source_text and inputs.source_text.strip():
        return await text_audit(inputs.tenant_id, inputs.targets, inputs.source_text,
                                retriever=retriever, index=index, embedder=embedder,
                                book=book)
    raise InvalidRequest("an audit needs a policy document or a text to check",
                         hint="tag a company policy, or paste the text to audit")


def per_theme(themes: int) -> int:
    """Chunks per theme per target: the evidence budget (MAX_THEMES × PER_THEME) shared by
    the themes, between MIN_PER_THEME and PER_THEME each."""
    if themes <= MAX_THEMES:
        return PER_THEME
    return max(MIN_PER_THEME, min(PER_THEME, round(MAX_THEMES * PER_THEME / themes)))


@dataclass
class _Target:
    document: Document
    chunks: list[StoredChunk]
    pages: dict[int, str]
    units: list[Unit]
    obligations: list[drafts.Candidate]
    lists: dict[tuple[int, int], Unit]  # each list item's (page, start) -> its whole list


async def _policy_audit(inputs: AuditInputs, source: Document, *, retriever: HybridRetriever,
                        index: ChunkIndex, embedder: Embedder, book: CitationBook,
                        thresholds: drafts.Thresholds,
                        memo: UnitVectors | None) -> AuditResult:
    tenant = inputs.tenant_id
    policy_chunks = await index.document_chunks(tenant, source.id)
    sample = stratify(policy_chunks)
    policy_pages = page_texts(policy_chunks)
    policy_units = audit_units.policy_units(source.id, policy_chunks)
    themes = matching.themes(policy_units, sample, limit=MAX_QUERIES)
    if not themes:
        raise InvalidRequest(f"\"{source.title}\" has no text to audit")
    # The policy is embedded while the targets are searched and read.
    policy_job = asyncio.ensure_future(_embed_units(
        embedder, memo, tenant, [(source.id, matching.context_of(u)) for u in policy_units]))
    try:
        target_chunks = await asyncio.gather(*(index.document_chunks(tenant, d.id)
                                               for d in inputs.targets))
        # Searched in the targets' words: "Dealing with the FSRA" as "… the Regulator".
        aliases = glossary.acronyms(c.text for chunks in target_chunks for c in chunks)
        evidence = await by_theme(retriever, tenant, themes, [t.id for t in inputs.targets],
                                  per_theme=per_theme(len(themes)),
                                  queries=[glossary.expand(t, aliases) for t in themes])
        policy_text = " ".join(u.text for u in policy_units)
        targets = [_read_target(document, chunks, evidence, policy_text, policy_units)
                   for document, chunks in zip(inputs.targets, target_chunks, strict=True)]
        obligation_vectors = await _embed_units(
            embedder, memo, tenant,
            [(t.document.id, matching.context_of(c.unit)) for t in targets for c in t.obligations])
        policy_vectors = await policy_job
    finally:
        if not policy_job.done():
            policy_job.cancel()
    enumerated = await _enumerations(targets, obligation_vectors, policy_units,
                                     policy_vectors, embedder=embedder, thresholds=thresholds,
                                     memo=memo, tenant=tenant, source_id=source.id)
    findings: list[AuditFinding] = []
    held_back = 0
    offset = 0
    rules = list(dict.fromkeys(
        obligation_rules.reference(t.document.title, c.unit.clause)
        for t in targets for c in t.obligations))
    for target, (enumeration, item_vectors) in zip(targets, enumerated, strict=True):
        n = len(target.obligations)
        title = target.document.title
        addressee = obligation_rules.usual_addressee(target.units)
        drafts = alignment.match(target.obligations, obligation_vectors[offset:offset + n],
                                 policy_units, policy_vectors, title=title,
                                 addressee=addressee, context=target.units,
                                 thresholds=thresholds)
        offset += n
        drafts += lists.omitted(target.obligations, policy_units, policy_vectors, enumeration,
                                item_vectors, title=title, addressee=addressee,
                                skip={d.target_clause or "" for d in drafts})
        cited, unlisted = _cite(drafts, target, source, policy_chunks, policy_pages, book)
        findings.extend(cited)
        held_back += unlisted
    return AuditResult(mode="policy", overall_status=overall_status(findings),
                       findings=findings,
                       summary=summary(findings, inputs.targets, themes, held_back=held_back,
                                       not_offered=[a.name for a in
                                                    scope.not_offered(policy_text)],
                                       rules=rules),
                       targets_checked=len(inputs.targets), themes_analyzed=len(themes),
                       rules_checked=rules)


def _read_target(document: Document, chunks: list[StoredChunk],
                 evidence: dict[str, dict[UUID, list[ChunkHit]]],
                 policy_text: str, policy_units: Sequence[Unit]) -> _Target:
    """A target's units and the obligations among them worth checking: those the themes'
    evidence holds, those of the rule sections no theme reached, and those the policy's
    statements of fact restate."""
    pages = page_texts(chunks)
    units = segment(document.id, pages)
    applies = obligation_rules.applicability(units, policy_text)
    obligations = matching.candidates(
        units, {theme: per[document.id] for theme, per in evidence.items()},
        limit=MAX_OBLIGATIONS, applies=applies)
    obligations += matching.unreached(units, obligations, limit=MAX_UNREACHED, applies=applies)
    anchored = {(c.unit.page, c.unit.start): c
                for c in matching.anchored(units, policy_units, applies=applies)}
    # A rule both found and anchored keeps its theme and score, and learns its anchor.
    obligations = [replace(c, anchor=anchored.pop((c.unit.page, c.unit.start)).anchor)
                   if (c.unit.page, c.unit.start) in anchored else c for c in obligations]
    obligations += anchored.values()
    lists = {(part.page, part.start): group for group in group_lists(units)
             for part in group.parts[1:]}
    return _Target(document, chunks, pages, units, obligations, lists)


async def _enumerations(targets: Sequence[_Target], obligation_vectors: Vectors,
                        policy_units: Sequence[Unit], policy_vectors: Vectors, *,
                        embedder: Embedder, thresholds: drafts.Thresholds,
                        memo: UnitVectors | None, tenant: UUID, source_id: UUID,
                        ) -> list[tuple[lists.Enumerations, Vectors]]:
    """Each target's lists to read item by item (lists.omitted), with their items embedded
    by their own words - in one batch, each text once."""
    enumerated, offset = [], 0
    for target in targets:
        n = len(target.obligations)
        # A policy list about the subject at all (TOPIC) may be the rule's counterpart;
        # whether it is, its items decide (lists._counterpart). RELATED missed a list of a
        # trust's parties that restates four of the rule's five items.
        enumerated.append(lists.enumerations(
            target.obligations, obligation_vectors[offset:offset + n], policy_units,
            policy_vectors, related=thresholds.topic, nested=thresholds.related))
        offset += n
    # Each text is kept under the document it is from: a rule item under its target, a
    # policy list's item under the policy (audit_units embeds both ahead).
    keyed = [[(t.document.id, text) for text in e.rule_texts(t.obligations)] +
             [(source_id, text) for text in e.list_texts()]
             for e, t in zip(enumerated, targets, strict=True)]
    unique = list(dict.fromkeys(key for batch in keyed for key in batch))
    vectors = await _embed_units(embedder, memo, tenant, unique)
    at = {key: k for k, key in enumerate(unique)}
    return [(e, vectors[[at[key] for key in batch]])
            for e, batch in zip(enumerated, keyed, strict=True)]


async def _embed_units(embedder: Embedder, memo: UnitVectors | None, tenant: UUID,
                       units: list[tuple[UUID, str]]) -> Vectors:
    """The vectors of (document id, text) pairs: from ``memo`` where an earlier audit read
    the same text of the same document (a policy audited again, or against other targets, as
    much as a regulation), embedding only the rest; all of them without a memo."""
    if memo is not None:
        return await memo.embed(embedder, tenant, units)
    if not units:
        return np.zeros((0, embedder.dimension), dtype=np.float32)
    return await asyncio.to_thread(embedder.embed, [text for _, text in units])


def _cite(drafts: list[drafts.Draft], target: _Target, source: Document,
          policy_chunks: list[StoredChunk], policy_pages: dict[int, str],
          book: CitationBook) -> tuple[list[AuditFinding], int]:
    """The target's findings, gravest first, each with verified quotes, at most
    MAX_FINDINGS of which at most MAX_GAPS omissions: contradictions are kept before
    omissions (what the policy says wrongly is surer than what it leaves out), then by
    severity and confidence. Also how many drafts the caps left out, which the summary
    owns up to (a reader who is told of 25 omissions must not take them for all)."""
    ordered = sorted(drafts, key=lambda d: (d.kind != "conflict",
                                            SEVERITY_ORDER.index(d.severity), -d.confidence))
    out: list[AuditFinding] = []
    gaps = unlisted = 0
    for draft in ordered:
        if len(out) >= MAX_FINDINGS or (draft.kind == "gap" and gaps >= MAX_GAPS):
            unlisted += 1
            continue
        quoted = _shown(draft, target)
        target_quote = _quote(quoted, target.chunks, target.pages, target.document,
                              focus=draft.focus)
        source_quote = None if draft.policy_unit is None else _quote(
            draft.policy_unit, policy_chunks, policy_pages, source, focus=draft.policy_focus)
        if target_quote is None or (draft.policy_unit is not None and source_quote is None):
            continue  # nothing is cited for a finding that cannot quote both sides
        numbers = [book.cite(*target_quote)] + ([book.cite(*source_quote)] if source_quote
                                                else [])
        if None in numbers:
            continue
        gaps += draft.kind == "gap"
        out.append(AuditFinding(
            target_doc_id=target.document.id, target_doc_title=target.document.title,
            theme=draft.obligation.theme, kind=draft.kind, severity=draft.severity,
            consequence=draft.consequence,
            source_quote=source_quote[1] if source_quote else None,
            target_quote=target_quote[1], target_clause=draft.target_clause,
            target_page=quoted.page if target_quote[0].paged else None,
            suggestion=draft.suggestion, confidence_score=round(draft.confidence, 3),
            citations=[n for n in numbers if n is not None]))
    return sorted(out, key=lambda f: SEVERITY_ORDER.index(f.severity)), unlisted


def _shown(draft: drafts.Draft, target: _Target) -> Unit:
    """What a finding quotes of the rule: the part it turns on, read from its lead-in when
    both fit one quote (unit_lists.in_its_list). An omitted item is always quoted itself - the
    list's opening alone would not show what is missing."""
    if draft.quote_unit is not None:
        group = target.lists.get((draft.quote_unit.page, draft.quote_unit.start))
        return in_its_list(draft.quote_unit, draft.target_unit if group is None else group)
    unit = draft.target_unit
    group = target.lists.get((unit.page, unit.start))
    shown = in_its_list(unit, group) if group is not None else unit
    return unit if shown is group else shown


def _quote(unit: Unit, chunks: Sequence[StoredChunk], pages: dict[int, str],
           document: Document, *, focus: str) -> tuple[ChunkHit, str] | None:
    """The chunk and verbatim quote for ``unit``, when the quote verifies against the chunk
    (so citing it cannot fail)."""
    found = citable(unit, chunks, pages.get(unit.page, ""), document, focus=focus)
    if found is None or len(found[1]) > MAX_QUOTE_CHARS or not verify(found[1], found[0].text):
        return None
    return found
