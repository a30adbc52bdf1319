"""Where an audit's review stands (issue 47): which rows the officer's earlier decisions still
settle, and which of those decisions reopened because what they rested on changed.

Pure functions over a matrix, the decisions in force and the policy's text. A decision is
keyed by policy, regulation and obligation (domain/review.py), so it reaches every later
audit of the same policy; these rules keep it from standing on a policy that moved under it:
a decision that relied on a clause stands while that clause is still in the policy, word for
word; one that relied on none stands while the policy's closest clauses to the row are the
ones the officer saw."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from uuid import UUID

from regintel.domain.coverage import CoverageMatrix, CoverageRow
from regintel.domain.documents import ChunkSpan
from regintel.domain.review import ReviewDecision, RowReview

CLAUSE_GONE = "the clause it rested on is no longer in the policy"
CONTEXT_CHANGED = "the policy's closest clauses changed since it was decided"
# The officer's decisions that make a row a finding to act on.
FINDING_DECISIONS = frozenset({"gap", "partly_met"})


def normalise(text: str) -> str:
    """Whitespace aside: a re-extraction that reflows lines is not a change of wording."""
    return " ".join(text.split())


def verbatim(clause: str, text: str) -> bool:
    """Whether ``clause`` is in ``text`` word for word (case counts: "may" is not "MAY" in a
    defined-term document, and a clause is quoted, not paraphrased)."""
    said = normalise(clause)
    return bool(said) and said in normalise(text)


def context_key(row: CoverageRow) -> str:
    """What the officer saw of the policy for this row: its candidate quotes. Sorted, so a
    re-ranking of the same quotes is no change; a quote added, dropped or reworded is."""
    quotes = sorted(normalise(q.quote) for q in row.policy_quotes)
    return hashlib.sha256("\n".join(quotes).encode("utf-8")).hexdigest()[:24]


def policy_text(chunks: Iterable[ChunkSpan]) -> str:
    """A document's text from its chunks in order, the overlap between neighbours dropped
    where the offsets show it (so a clause across a chunk boundary is found whole). Where they
    do not (a chunk over pages), the chunk is kept whole: a repeated passage only repeats."""
    parts: list[str] = []
    previous: ChunkSpan | None = None
    for chunk in chunks:
        text = chunk.text
        if (previous is not None and _offsets_hold(previous) and _offsets_hold(chunk)
                and chunk.page_start == previous.page_end
                and previous.char_start <= chunk.char_start <= previous.char_end):
            text = text[previous.char_end - chunk.char_start:]
            parts.append(text)
        else:
            parts.append(("\n" if parts else "") + text)
        previous = chunk
    return "".join(parts)


def _offsets_hold(chunk: ChunkSpan) -> bool:
    return chunk.page_start == chunk.page_end and \
        chunk.char_end - chunk.char_start == len(chunk.text)


def quotes_text(matrix: CoverageMatrix) -> str:
    """The words of a pasted-text audit that are kept: its rows' candidate quotes (the text
    itself is not stored, so a clause is checked against what the officer was shown)."""
    return "\n".join(q.quote for row in matrix.rows for q in row.policy_quotes)


def row_review(row: CoverageRow, decision: ReviewDecision | None, text: str,
               superseded: Mapping[str, str] | None = None,
               carried: Mapping[str, str] | None = None) -> RowReview:
    """One row's standing: undecided, decided, or decided earlier and reopened (with why).
    ``superseded``: why a later version of the regulation reopens decisions, by the keys of
    the obligations it altered or removed; ``carried``: the key an obligation had in the
    version before (renumbered, or edited for form only), whose decisions it keeps."""
    if decision is None or decision.obligation_key not in (row.key,
                                                           (carried or {}).get(row.key)):
        return RowReview(obligation_key=row.key)
    reopened: str | None = None
    if superseded and row.key in superseded:
        reopened = superseded[row.key]
    elif decision.clause:
        if not verbatim(decision.clause, text):
            reopened = CLAUSE_GONE
    elif decision.context_key != context_key(row):
        reopened = CONTEXT_CHANGED
    return RowReview(obligation_key=row.key, decision=decision, reopened=reopened)


def row_reviews(matrix: CoverageMatrix, decisions: Mapping[tuple[str, str], ReviewDecision],
                regulation_keys: Mapping[UUID, str], policy_text: str,
                superseded: Mapping[str, str] | None = None,
                carried: Mapping[str, str] | None = None) -> dict[str, RowReview]:
    """Each row's standing, by obligation key. ``decisions`` are those in force, keyed by
    (regulation_key, obligation_key); ``regulation_keys`` gives each regulation document of
    the matrix its key; ``policy_text`` is the audited policy's text now; ``superseded`` and
    ``carried`` as in ``row_review``."""
    reviews: dict[str, RowReview] = {}
    for row in matrix.rows:
        regulation = regulation_keys.get(row.obligation.document_id)
        found = None
        if regulation is not None:
            found = decisions.get((regulation, row.key))
            if found is None and carried and row.key in carried:
                found = decisions.get((regulation, carried[row.key]))
        reviews[row.key] = row_review(row, found, policy_text, superseded, carried)
    return reviews


def progress(matrix: CoverageMatrix, reviews: Mapping[str, RowReview]) -> dict[str, int]:
    """How far the review has got. ``total`` leaves out the rows the engine reads as not
    applying (they bind another kind of party: nothing for the officer to decide unless they
    choose to); ``decided`` counts rows with a decision in force, ``findings`` those decided
    as a gap or partly met and the engine's proven findings no decision overrules (as the
    exports count them), ``open`` the rest of the total, ``reopened`` the open rows whose
    earlier decision no longer stands."""
    counted = [row for row in matrix.queue if row.review != "not_applicable"]
    standing = [reviews.get(row.key) for row in counted]
    decided = [r for r in standing if r is not None and r.decided]

    def finding(row: CoverageRow, review: RowReview | None) -> bool:
        if review is not None and review.decided and review.decision is not None:
            return review.decision.decision in FINDING_DECISIONS
        return row.review == "finding"

    return {
        "total": len(counted),
        "decided": len(decided),
        "findings": sum(finding(row, r) for row, r in zip(counted, standing, strict=True)),
        "open": len(counted) - len(decided),
        "reopened": sum(1 for r in standing if r is not None and r.reopened is not None),
    }
