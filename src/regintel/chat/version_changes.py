"""Questions about the versions of a document (issue 48), answered from the alignment of two
versions (changes/), never from a search that could mix them.

"What changed in Part 478 between the 2012 and 2014 versions?", "What changed about record
keeping?", "Did the new version change the reporting deadline?": the family is the one the
question's documents belong to (or the library's only family of versions), the versions are
the ones the question names by label or year (default: the current one and the one before
it), and the changes are those whose words or typed facts share the question's topic. Each
change is cited to both versions, old and new words quoted verbatim from their chunks.

A question that names one version ("what did the 2012 version require …?") is an ordinary
question scoped to that version (``named_version``): its answer cites only it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from uuid import UUID

from regintel.changes.impacting import ChangeReports
from regintel.changes.models import Change, ChangeReport
from regintel.chat.engine import Composed
from regintel.chat.named_documents import named_documents
from regintel.domain.documents import ChunkHit, Document, StoredChunk, titled
from regintel.obligations.lexical import content_words
from regintel.ports.library import ChunkIndex, DocumentStore
from regintel.retrieval.evidence import CitationBook, normalise, quote_around

# A question about what differs between versions, in plain English (no document's words).
CHANGE_QUESTION = re.compile(
    r"\bwhat(?:'s|\s+has|\s+have|\s+was|\s+were)?\s+(?:\w+\s+){0,2}changed?\b|"
    r"\bwhat\s+(?:are|were)\s+the\s+(?:\w+\s+)?(?:changes|amendments|differences)\b|"
    r"\b(?:did|does|has|have)\b.{0,80}\b(?:version|amendment|revision)s?\b.{0,40}\b"
    r"(?:change|amend|alter|modif)\w*|"
    r"\b(?:did|does|has|have)\b.{0,60}\b(?:change|amend|alter|modif)\w*\b.{0,80}\bversions?\b|"
    r"\bwhat(?:'s|\s+is)\s+new\s+in\b|\bchanges?\s+(?:made\s+)?(?:to|in|between)\b.{0,80}"
    r"\bversions?\b|\bamend(?:ed|ments?)\b", re.I)
# Words of the question that ask about change, not about the topic of the change.
_CHANGE_WORDS = re.compile(
    r"\b(?:what|whats|which|did|does|do|has|have|had|was|were|is|are|the|a|an|in|of|to|on|"
    r"and|or|from|between|about|regarding|concerning|any|new|newer|latest|old|older|earlier|"
    r"previous|current|later|last|first|version|versions|edition|revision|changes?|changed|"
    r"amend\w*|alter\w*|modif\w*|differ\w*|made|since|it|its|this|that|these|those|there|"
    r"anything|something|stood|as|when|how|for|now|then)\b", re.I)
_YEAR = re.compile(r"\b(?:19|20)\d{2}\b")
# Where an ordinary question names a version: next to the word, or "as it stood", "in force".
_VERSION_PHRASE = re.compile(
    r"\b[\w.-]+\s+(?:version|edition|text)\b|\b(?:version|edition)\s+(?:of\s+)?[\w.-]+|"
    r"\b(?:as\s+(?:it\s+)?stood|in\s+force)\s+(?:in|on|at)\s+(?:\w+\s+)?(?:19|20)\d{2}\b",
    re.I)
MAX_LISTED = 8
# Change summaries name these typed facts; a question asks about them in these words.
_FACT_WORDS = {"deadline": "deadline", "deadlines": "deadline", "due": "deadline",
               "period": "period", "periods": "period", "retention": "period",
               "frequency": "frequency", "often": "frequency", "amount": "amount",
               "threshold": "threshold", "thresholds": "threshold", "limit": "threshold",
               "approve": "approver", "approves": "approver", "approval": "approver",
               "approver": "approver", "percentage": "percentage"}


def is_change_question(message: str) -> bool:
    return bool(CHANGE_QUESTION.search(message))


def may_name_version(message: str) -> bool:
    """Whether an ordinary question could name a version (a year, or the word), so the
    library's versions are read only for those."""
    return bool(_YEAR.search(message) or re.search(r"\bversions?\b", message, re.I))


@dataclass(frozen=True)
class Pair:
    old: Document
    new: Document


def _mentioned(message: str, chain: Sequence[Document]) -> list[Document]:
    """The versions the message names, by label ("the 2014-18842 version") or by a year: the
    version whose label is that year, else the one in force then ("as it stood in 2012")."""
    said = message.lower()
    found: list[Document] = []
    for document in chain:
        label = (document.version or "").strip().lower()
        if label and re.search(rf"(?<![\w-]){re.escape(label)}(?![\w-])", said):
            found.append(document)
    for year in {int(y) for y in _YEAR.findall(message)}:
        if any(d.version and str(year) in d.version for d in found):
            continue
        in_force = [d for d in chain if (d.effective_date or d.created_at.date())
                    <= date(year, 12, 31)]
        if in_force and in_force[-1] not in found:
            found.append(in_force[-1])
    return sorted(found, key=chain.index)


def pair_asked(message: str, chain: Sequence[Document]) -> Pair | None:
    """The two versions a change question is about: the two it names, the one it names and
    the one before it, or the current one and the one before it."""
    if len(chain) < 2:
        return None
    named = _mentioned(message, chain)
    if len(named) >= 2:
        return Pair(named[0], named[-1])
    at = chain.index(named[0]) if named else next(
        (n for n, d in enumerate(chain) if d.is_current), len(chain) - 1)
    if at == 0:
        return Pair(chain[0], chain[1])
    return Pair(chain[at - 1], chain[at])


def named_version(message: str, chain: Sequence[Document]) -> Document | None:
    """The one version an ordinary question names ("in the 2012 version", "as it stood in
    2012"), if it names one: a year elsewhere in a question ("transactions after 2012") is
    about the facts, not the text."""
    said = " ".join(m.group(0) for m in _VERSION_PHRASE.finditer(message))
    named = _mentioned(said, chain) if said else []
    return named[0] if len(named) == 1 else None


def topic_of(message: str, documents: Sequence[Document]) -> tuple[set[str], str]:
    """What a change question is about, its change words, years, labels and the document's
    own title words aside: its content words, and the same words as the question put them."""
    text = _YEAR.sub(" ", message)
    for document in documents:
        for word in re.findall(r"[\w'’-]+", f"{document.title} {document.version or ''}"):
            if not word.isdigit() or len(word) > 2:
                text = re.sub(rf"\b{re.escape(word)}\b", " ", text, flags=re.I)
    rest = _CHANGE_WORDS.sub(" ", text)
    words = set(content_words(rest))
    said = " ".join(w for w in re.findall(r"[\w'’-]+", rest) if content_words(w))
    return words, said


def _facts_asked(message: str) -> set[str]:
    return {kind for word, kind in _FACT_WORDS.items()
            if re.search(rf"\b{word}\b", message, re.I)}


def relevant(report: ChangeReport, topic: set[str], facts: set[str]) -> list[Change]:
    """The changes about the topic, those sharing most of its words first; all of them when
    the question has no topic. A change whose typed facts are of a kind the question asks
    about ("deadline") is about it whatever its words."""
    if not topic and not facts:
        return [c for c in report.changes if c.substantive] or list(report.changes)
    scored: list[tuple[float, int, Change]] = []
    for n, change in enumerate(report.changes):
        words = content_words(" ".join(filter(None, (
            change.summary, change.old_quote, change.new_quote, change.section,
            " ".join(change.divisions)))))
        shared = len(topic & words) / len(topic) if topic else 0.0
        typed = any(f.kind in facts for f in change.facts_changed)
        if typed or shared >= 0.5:
            scored.append((shared + (1.0 if typed else 0.0), -n, change))
    return [c for *_, c in sorted(scored, key=lambda s: (s[0], s[1]), reverse=True)]


def _where_it_differs(change: Change, side: str) -> int:
    """Where in the old (or new) quote the first edit falls: the quote is cut around it."""
    at = 0
    for op in change.redline_ops:
        if op.op == "equal":
            at += len(op.text)
        elif (op.op == "delete") == (side == "old"):
            return at
    return 0


async def _hit_for(index: ChunkIndex, tenant_id: UUID, document: Document,
                   chunks: dict[UUID, list[StoredChunk]],
                   quote: str) -> tuple[ChunkHit, str] | None:
    """The chunk of ``document`` that holds ``quote`` (cut to a citation's length), with the
    cut quote."""
    if document.id not in chunks:
        chunks[document.id] = await index.document_chunks(tenant_id, document.id)
    said = normalise(quote)
    for chunk in chunks[document.id]:
        if said and said in normalise(chunk.text):
            return ChunkHit.of(chunk, document, 1.0), quote
    return None


_OWN_LABEL = re.compile(r"^\s*(?:§+\s*)?(\d+(?:\.\d+)+[a-z]?|\(\w{1,5}\))(?=\s)")


def _label(provision: str | None, quote: str | None) -> str | None:
    """A provision as a reader cites it: its number; where the reader of provisions named a
    paragraph by its first words ("¶ If a licensee …"), the number the paragraph opens with."""
    if provision and "¶" not in provision:
        return provision
    own = _OWN_LABEL.match(quote or "")
    return own.group(1) if own else provision


def _place(change: Change) -> str:
    old = _label(change.old_provision, change.old_quote)
    new = _label(change.new_provision, change.new_quote)
    if old and new and old != new:
        return f"{old} → {new}"
    return new or old or change.section


async def answer(*, reports: ChangeReports, index: ChunkIndex, tenant_id: UUID,
                 message: str, pair: Pair, book: CitationBook) -> Composed:
    """The answer to a change question about ``pair``: what changed on the question's topic,
    each change with the old and new words quoted from their versions and cited."""
    report = await reports.report(tenant_id, pair.old.id, pair.new.id)
    old_name = titled(pair.old.title, pair.old.version)
    new_name = titled(pair.new.title, pair.new.version)
    (topic, said), facts = topic_of(message, [pair.old, pair.new]), _facts_asked(message)
    changes = relevant(report, topic, facts)
    about = f" about {said}" if said else ""
    if not changes:
        counted = report.counts
        return Composed(answer=(
            f"No change from {old_name} to {new_name} is{about or ' on that'}: the "
            f"{counted['total']} change{'s' if counted['total'] != 1 else ''} between them "
            f"({counted['substantive']} substantive) do not touch it. Read from the alignment "
            "of the two versions, provision by provision."))
    substantive = sum(c.substantive for c in changes)
    lines = [f"From {old_name} to {new_name}, {len(changes)} change"
             f"{'s' if len(changes) != 1 else ''}{about} ({substantive} substantive, "
             f"{len(changes) - substantive} editorial):", ""]
    chunks: dict[UUID, list[StoredChunk]] = {}
    for change in changes[:MAX_LISTED]:
        kind = change.kind if change.substantive else f"{change.kind}, editorial"
        line = [f"- **{_place(change)}** ({kind}): {change.summary}"]
        for side, document, label in (("old", pair.old, "Before"), ("new", pair.new, "Now")):
            quote = change.old_quote if side == "old" else change.new_quote
            if not quote:
                continue
            cut = quote_around(quote, _where_it_differs(change, side))
            found = await _hit_for(index, tenant_id, document, chunks, cut)
            number = book.cite(*found) if found is not None else None
            if number is not None:
                line.append(f"{label} ({document.version or 'earlier'}): “{cut}” [{number}]")
        lines.append(" ".join(line))
    if len(changes) > MAX_LISTED:
        lines += ["", f"{len(changes) - MAX_LISTED} more in the change report of the two "
                  "versions."]
    return Composed(answer="\n".join(lines))


async def chain_of(documents: DocumentStore, tenant_id: UUID,
                   candidates: Sequence[Document]) -> list[Document] | None:
    """The version chain the question is about: that of the documents in play when they are
    of one family, else None."""
    families = {d.family_id for d in candidates if d.family_id is not None}
    if len(families) != 1:
        return None
    anchor = next(d for d in candidates if d.family_id in families)
    chain = await documents.versions(tenant_id, anchor.id)
    return chain if len(chain) >= 2 else None


def family_asked(message: str, in_play: Sequence[Document],
                 library: Sequence[Document]) -> list[Document]:
    """The documents of versions a question is about: those in play that have versions, else
    the family whose current version the message names (its versions share a title, so a
    name fits them all and names none), else the library's only family."""
    with_versions = [d for d in in_play if d.family_id is not None]
    if with_versions:
        return with_versions
    current = [d for d in library if d.family_id is not None and d.is_current]
    named = named_documents(message, current)
    if len(named) == 1:
        return named
    return current if len(current) == 1 else []


async def pair_for(documents: DocumentStore, tenant_id: UUID, message: str,
                   in_play: Sequence[Document], library: Sequence[Document]) -> Pair | None:
    """The two versions a change question is about, or None when it is not one or the
    library has no versions of what it asks about."""
    if not is_change_question(message):
        return None
    chain = await chain_of(documents, tenant_id, family_asked(message, in_play, library))
    return pair_asked(message, chain) if chain else None


async def version_for(documents: DocumentStore, tenant_id: UUID, message: str,
                      in_play: Sequence[Document], library: Sequence[Document]
                      ) -> Document | None:
    """The one version an ordinary question names, to read it alone ("in the 2012
    version"), or None."""
    if is_change_question(message) or not may_name_version(message):
        return None
    chain = await chain_of(documents, tenant_id, family_asked(message, in_play, library))
    return named_version(message, chain) if chain else None
