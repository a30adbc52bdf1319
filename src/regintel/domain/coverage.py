"""The obligation register and the coverage matrix (issue 36): the rows a regulatory mapping is
made of. One obligation row per obligation sentence of a regulation (with its rule number, list
items, conditions, actor and typed facts); one coverage row per in-scope obligation when a policy
is audited (the policy clauses that meet it, and a status). The audit's findings are the
matrix's non-covered rows in the AuditFinding shape (domain/chat.py); the exports and the bench
read these types directly.

Every quote here (``text``, ``items``, ``PolicyQuote.quote``) is verbatim in its stored chunk:
the engine copies spans, never rewrites them."""

from __future__ import annotations

import hashlib
from typing import Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

from regintel.domain.chat import MAX_QUOTE_CHARS, Severity

# The force of an obligation, from its modal verb: "must/shall/is required to" bind, "must
# not/shall not/may not" prohibit, "may only" restricts a permission, "should" recommends.
Strength = Literal["mandatory", "prohibition", "restriction", "recommendation"]
ConditionKind = Literal["if", "unless", "where", "when", "except", "provided", "subject_to"]
FactKind = Literal[
    "period",      # a duration something lasts or is kept: "at least six years"
    "deadline",    # a time limit to act: "within 72 hours", "without undue delay"
    "frequency",   # how often: "annually", "at least once every two years"
    "amount",      # money: "USD 15,000", "EUR 20 000 000"
    "threshold",   # a count or quantity limit that is not money or a percentage
    "percentage",  # "4 %", "25 per cent"
    "approver",    # who decides or approves: "approved by the Governing Body"
    "start",       # when a period runs from: "from the date on which the relationship ends"
    "permission",  # permitted vs prohibited (value "permitted" | "prohibited")
    "extent",      # all vs a sample (value "all" | "sample")
]
# At least / at most / exactly / within (a deadline's upper bound) / not stated.
Comparator = Literal["at_least", "at_most", "exactly", "within", "none"]
CoverageStatus = Literal["covered", "partial", "missing", "conflicting"]
# Where a row stands in the review (issue 47): a ``finding`` the engine proved (a typed fact
# contradicted, a duty set aside, a listed item left out of a list the policy otherwise
# restates); a row for the officer to ``review``; one the engine reads as ``likely_met`` (a
# close restatement); ``not_applicable`` when the obligation binds another kind of party.
ReviewStatus = Literal["finding", "review", "likely_met", "not_applicable"]
# What the engine proposes for a row it did not prove, shown as a proposal, never a verdict.
Proposal = Literal["contradicted", "missing", "unclear", "met"]


class TypedFact(BaseModel):
    """A fact a sentence states, typed so two statements can be compared ("five years" against
    "at least six years"). ``text`` is the verbatim span; ``value`` and ``unit`` are normalised
    (durations in days, money in its currency, percentages as numbers); ``value`` is None for a
    fact without a number (an approver, "without undue delay", permitted vs prohibited)."""

    model_config = ConfigDict(frozen=True)

    kind: FactKind
    text: str
    value: float | None = None
    unit: str | None = Field(None, description="'day' for durations and frequencies (a "
                             "frequency's value is its interval in days), a currency code for "
                             "amounts, '%' for percentages, the counted noun for thresholds.")
    comparator: Comparator = "none"


class ObligationItem(BaseModel):
    """One list item of an obligation, kept with its label: "(a)", "(ii)", "1.", "-"."""

    model_config = ConfigDict(frozen=True)

    label: str
    text: str


class ObligationCondition(BaseModel):
    """A condition or exception on an obligation: the clause from its trigger word on."""

    model_config = ConfigDict(frozen=True)

    kind: ConditionKind
    text: str


class ObligationRow(BaseModel):
    """One obligation of a regulation, as the register stores it.

    ``rule`` is the rule number the chunk's citation uses ("8.1.1(a)", "Article 33"); ``section``
    the chunk's section path ("Part 3 › Chapter 8 › 8.1 …"). ``text`` is the obligation sentence
    verbatim; when the sentence opens a list, ``lead_in`` is the text before the list and
    ``items`` the list's items, each verbatim."""

    model_config = ConfigDict(frozen=True)

    id: UUID
    document_id: UUID
    document_title: str = ""
    ordinal: int = Field(0, ge=0, description="Order of the obligation in its document.")
    rule: str | None = None
    section: str | None = None
    page: int | None = None
    text: str
    lead_in: str | None = None
    items: tuple[ObligationItem, ...] = ()
    conditions: tuple[ObligationCondition, ...] = ()
    actor: str | None = Field(None, description="The subject the sentence binds, verbatim.")
    modal: str = Field(description="The modal phrase as written: 'must', 'shall not', 'is "
                       "required to', 'may only'.")
    strength: Strength
    facts: tuple[TypedFact, ...] = ()
    chunk_ids: tuple[UUID, ...] = Field((), description="The chunks the sentence came from "
                                        "(two when it crosses a chunk boundary).")


class PolicyQuote(BaseModel):
    """A policy clause that addresses an obligation: a verbatim quote from a stored chunk."""

    model_config = ConfigDict(frozen=True)

    document_id: UUID
    document_title: str = ""
    chunk_id: UUID
    quote: str = Field(max_length=MAX_QUOTE_CHARS)
    clause: str | None = None
    section: str | None = None
    page: int | None = None
    score: float = Field(0.0, ge=0.0, le=1.0, description="How closely it matches the rule.")


class FactDifference(BaseModel):
    """A fact the policy states differently from the rule: 'five years vs at least six years'."""

    model_config = ConfigDict(frozen=True)

    kind: FactKind
    policy: str = Field(description="The policy's fact, verbatim.")
    rule: str = Field(description="The rule's fact, verbatim.")

    @property
    def statement(self) -> str:
        if self.kind == "permission":  # words, not values: quoted, each said for what it is
            return f"it says \"{self.policy}\" where the rule says \"{self.rule}\""
        return f"{self.policy} vs {self.rule}"


class CoverageRow(BaseModel):
    """One row of the matrix: an in-scope obligation, the policy clauses that address it and
    its status. ``partial`` names what is missing (items, conditions); ``conflicting`` names the
    differing facts. ``severity`` is None for a covered row. ``uncertain`` marks rows whose
    match is weak either way (an LLM engine judges these)."""

    model_config = ConfigDict(frozen=True)

    obligation: ObligationRow
    status: CoverageStatus
    policy_quotes: tuple[PolicyQuote, ...] = ()
    missing_items: tuple[str, ...] = ()
    missing_conditions: tuple[str, ...] = ()
    differing_facts: tuple[FactDifference, ...] = ()
    severity: Severity | None = None
    fix: str = ""
    score: float = Field(0.0, ge=0.0, le=1.0, description="The best policy match's score.")
    confidence: float = Field(0.0, ge=0.0, le=1.0, description="How sure the status is "
                              "(ranks the findings).")
    uncertain: bool = False
    contested: bool = Field(False, description="The contradicting sentence contradicts a "
                            "rule of another part about as closely: which rule it breaks is "
                            "for the officer to say.")
    suspected: tuple[FactDifference, ...] = Field((), description="Facts a policy sentence "
                                                  "states against the rule, in a sentence too "
                                                  "far from it to prove they are about the "
                                                  "same duty (shown first among the quotes).")
    specificity: float = Field(0.0, ge=-1.0, le=1.0, description="How much closer the "
                               "policy's best sentence for this rule is to it than to the "
                               "rules it is closest to in general.")
    review: ReviewStatus = "review"
    proposed: Proposal = "unclear"
    priority: float = Field(0.0, ge=0.0, le=1.0, description="How likely the row is a gap, "
                            "as the engine reads it: orders the review queue.")
    reason: str = Field("", description="Why the row is proposed as it is, in one line.")
    proposed_by: str = Field("engine", description="'engine', or the model that proposed "
                             "the status ('model: <name>'); a proposal is never a decision.")

    @property
    def key(self) -> str:
        """The row's obligation, as decisions are keyed: its rule and its words."""
        return obligation_key(self.obligation)


def obligation_key(row: ObligationRow) -> str:
    """A stable key of an obligation across audits and re-ingestions of the same text: its
    rule and its sentence, whitespace and case aside (a changed sentence is a new key)."""
    said = " ".join(f"{row.rule or ''} {row.text}".lower().split())
    return hashlib.sha256(said.encode("utf-8")).hexdigest()[:24]


class ExcludedParty(BaseModel):
    """A party the regulation binds that the policy does not govern (the regulator, a member
    state, a court, another kind of firm): its obligations left out of the matrix, with why."""

    model_config = ConfigDict(frozen=True)

    document_id: UUID
    actor: str = Field(description="The party as the register names it.")
    obligations: int = Field(0, ge=0)
    rules: tuple[str, ...] = Field((), description="Some of its rules, as examples.")
    reason: str


class ScopePart(BaseModel):
    """A part of a regulation (a section path, or its top heading) and whether the audit
    checked it, with why: near the policy's content, named in the user's focus, or neither."""

    model_config = ConfigDict(frozen=True)

    document_id: UUID
    document_title: str = ""
    section: str
    checked: bool
    reason: str
    obligations: int = Field(0, ge=0)


class CoverageMatrix(BaseModel):
    """A policy (or a text) mapped against 1–5 regulations: the rows of the checked parts and
    the scope, checked and not checked."""

    model_config = ConfigDict(frozen=True)

    policy_document_id: UUID | None = Field(None, description="None when a pasted text was "
                                            "audited rather than a stored policy.")
    policy_title: str = ""
    regulation_ids: tuple[UUID, ...] = ()
    focus: str | None = Field(None, description="The user's focus, when the request named one.")
    rows: tuple[CoverageRow, ...] = ()
    scope: tuple[ScopePart, ...] = ()
    excluded: tuple[ExcludedParty, ...] = ()

    def count(self, status: CoverageStatus) -> int:
        return sum(1 for row in self.rows if row.status == status)

    @property
    def findings_rows(self) -> tuple[CoverageRow, ...]:
        """The rows that become findings: every status but covered."""
        return tuple(row for row in self.rows if row.status != "covered")

    @property
    def queue(self) -> tuple[CoverageRow, ...]:
        """The rows in review order: proven findings, then the rows to review with the likeliest
        gaps first, then those likely met, then those that do not apply."""
        rank = {"finding": 0, "review": 1, "likely_met": 2, "not_applicable": 3}
        return tuple(sorted(self.rows, key=lambda r: (rank[r.review], -r.priority)))
