"""Carrying the officer's decisions into a later audit (obligations/review_state.py): a decision
stands while what it rested on is unchanged, and reopens, saying why, when it changed."""

from __future__ import annotations

from datetime import UTC, datetime
from uuid import UUID, uuid4

from regintel.domain.coverage import CoverageMatrix, CoverageRow, ObligationRow, PolicyQuote
from regintel.domain.documents import ChunkSpan
from regintel.domain.review import Decision, ReviewDecision
from regintel.obligations.review_state import (
    CLAUSE_GONE,
    CONTEXT_CHANGED,
    context_key,
    policy_text,
    progress,
    row_reviews,
    verbatim,
)

REG, POLICY = uuid4(), uuid4()
KEYS = {REG: "rules"}
RETAIN = "The Firm keeps records for five years."
TRAIN = "All staff complete training every two years."
POLICY_TEXT = f"1. Records. {RETAIN}\n2. Training. {TRAIN}"


def _row(rule: str, text: str, *quotes: str, review: str = "review") -> CoverageRow:
    obligation = ObligationRow.model_validate({
        "id": uuid4(), "document_id": REG, "document_title": "Rules", "rule": rule,
        "text": text, "modal": "must", "strength": "mandatory"})
    return CoverageRow.model_validate({
        "obligation": obligation, "status": "partial", "review": review,
        "policy_quotes": [PolicyQuote(document_id=POLICY, chunk_id=uuid4(), quote=q)
                          for q in quotes]})


def _matrix(*rows: CoverageRow) -> CoverageMatrix:
    return CoverageMatrix(policy_document_id=POLICY, policy_title="Policy",
                          regulation_ids=(REG,), rows=rows)


def _decided(row: CoverageRow, decision: Decision, *, clause: str | None = None,
             context: str | None = None) -> dict[tuple[str, str], ReviewDecision]:
    made = ReviewDecision(id=uuid4(), policy_key="policy", regulation_key="rules",
                          obligation_key=row.key, decision=decision, clause=clause,
                          context_key=context if context is not None else context_key(row),
                          decided_at=datetime.now(UTC))
    return {("rules", row.key): made}


RETENTION = _row("1.1", "A firm must keep records for six years.", RETAIN)
TRAINING = _row("1.2", "A firm must train staff annually.", TRAIN)


def test_a_decision_stands_while_its_clause_and_context_are_unchanged() -> None:
    matrix = _matrix(RETENTION, TRAINING)
    decisions = {**_decided(RETENTION, "gap"),
                 **_decided(TRAINING, "partly_met", clause="  All staff complete\ntraining ")}
    reviews = row_reviews(matrix, decisions, KEYS, POLICY_TEXT)
    assert all(r.decided and r.reopened is None for r in reviews.values())
    assert progress(matrix, reviews) == {"total": 2, "decided": 2, "findings": 2, "open": 0,
                                         "reopened": 0}


def test_a_decision_reopens_when_its_clause_left_the_policy() -> None:
    matrix = _matrix(TRAINING)
    decisions = _decided(TRAINING, "met", clause=TRAIN)
    changed = POLICY_TEXT.replace("every two years", "every year")
    [review] = row_reviews(matrix, decisions, KEYS, changed).values()
    assert review.decision is not None and not review.decided
    assert review.reopened == CLAUSE_GONE
    assert progress(matrix, {review.obligation_key: review})["reopened"] == 1


def test_a_decision_without_a_clause_reopens_when_the_candidates_changed() -> None:
    decisions = _decided(RETENTION, "gap")
    reworded = _row("1.1", RETENTION.obligation.text, "The Firm keeps records for six years.")
    assert reworded.key == RETENTION.key  # the same row of the regulation
    [review] = row_reviews(_matrix(reworded), decisions, KEYS, POLICY_TEXT).values()
    assert review.reopened == CONTEXT_CHANGED and not review.decided
    # Another order of the same quotes is no change.
    two = _row("1.1", RETENTION.obligation.text, RETAIN, TRAIN)
    swapped = _row("1.1", RETENTION.obligation.text, TRAIN, RETAIN)
    assert context_key(two) == context_key(swapped) != context_key(RETENTION)


def test_a_decision_on_another_regulation_or_row_does_not_apply() -> None:
    decisions = _decided(RETENTION, "gap")
    other: dict[UUID, str] = {REG: "other rules"}
    assert not row_reviews(_matrix(RETENTION), decisions, other, POLICY_TEXT)[
        RETENTION.key].decided
    assert row_reviews(_matrix(TRAINING), decisions, KEYS, POLICY_TEXT)[
        TRAINING.key].decision is None


def test_progress_leaves_out_rows_that_do_not_apply() -> None:
    elsewhere = _row("9.9", "The authority must publish a register.", review="not_applicable")
    matrix = _matrix(RETENTION, TRAINING, elsewhere)
    reviews = row_reviews(matrix, _decided(TRAINING, "met", clause=TRAIN), KEYS, POLICY_TEXT)
    assert progress(matrix, reviews) == {"total": 2, "decided": 1, "findings": 0, "open": 1,
                                         "reopened": 0}


def test_clauses_are_found_across_overlapping_chunks_case_counting() -> None:
    page = "Alpha beta gamma. Delta epsilon zeta. Eta theta iota."
    first = ChunkSpan(ordinal=0, text=page[:30], page_start=1, page_end=1, char_start=0,
                      char_end=30)
    second = ChunkSpan(ordinal=1, text=page[20:], page_start=1, page_end=1, char_start=20,
                       char_end=len(page))
    text = policy_text([first, second])
    assert text == page
    assert verbatim("gamma.  Delta epsilon zeta. Eta", text)
    assert not verbatim("delta epsilon", text) and not verbatim("   ", text)


def test_a_proven_finding_counts_until_a_decision_overrules_it() -> None:
    proven = _row("3.1", "Records must be kept for six years.", review="finding")
    matrix = _matrix(proven, TRAINING)
    undecided = row_reviews(matrix, {}, KEYS, POLICY_TEXT)
    assert progress(matrix, undecided)["findings"] == 1
    overruled = row_reviews(matrix, _decided(proven, "not_applicable"), KEYS, POLICY_TEXT)
    assert progress(matrix, overruled)["findings"] == 0
