"""The coverage matrix: each in-scope obligation of 1–5 regulations mapped to the policy
clauses that address it, with a status.

- Closeness of a rule and a policy sentence is the embedding's cosine blended with the share of
  the rule's content words the sentence uses (lexical.overlap).
- Scope: a regulation's part (its section path, two levels deep) is checked when one of its
  binding obligations is at least SCOPE close to some policy sentence, or the user's focus
  names it; the other parts are listed as not checked, with their closest match.
- Status: ``conflicting`` when a policy sentence at least RELATED close states a fact the rule
  contradicts (compare.differences), for the rule or for one of its list items, or when the
  rule's mutually closest sentence (each the other's best match) leaves the duty to someone's
  choice or adds a condition the rule lacks; a policy sentence contradicts only the rule it is
  closest to, and rules outside the checked parts are read for contradictions too; ``missing``
  when no policy sentence is COVERED close; ``partial`` when the rule is met but some of its
  items are not (each item's closest sentence below ITEM_COVERED), the furthest first, its
  confidence 0.5 plus how far it stands below the next item; else ``covered``.
- Severity from the rule's strength (a prohibition is graver than a duty) and the kind of gap
  (a contradiction is graver than an omission, a missing item than a missing rule)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

import numpy as np
import numpy.typing as npt

from regintel.domain.chat import Severity
from regintel.domain.coverage import (
    CoverageRow,
    CoverageStatus,
    ExcludedParty,
    FactDifference,
    ObligationRow,
    PolicyQuote,
    ScopePart,
    TypedFact,
)
from regintel.obligations.applicability import Applicability, applicability
from regintel.obligations.compare import differences, put_off
from regintel.obligations.facts import facts_of
from regintel.obligations.lexical import content_words
from regintel.obligations.policy_text import PolicyUnit
from regintel.obligations.quotes import policy_quote

SECTION_DEPTH = 2
LEXICAL_WEIGHT = 0.3
NEAR_TIE = 0.03
RIVAL = 0.12  # a rival rule this close to a contradicting sentence contests the owner's claim
LOOSE = 0.3  # a contradicting fact this close to a rule is suspected, not proven…
LOOSE_TOP = 10  # …among the rule's closest sentences
HUB_RULES = 10  # a sentence's closeness to rules in general: the mean of its closest ten
CONTAINED = 0.66  # two thirds of an item's content words: "date of birth" in "…, date of birth, …"


@dataclass(frozen=True)
class Thresholds:
    scope: float = 0.45
    covered: float = 0.5
    item_covered: float = 0.5
    related: float = 0.4
    item_gap: float = 0.12  # an item this far below its siblings' median is left out…
    item_high: float = 0.6  # …unless a policy sentence is this close to it


SHIPPED = Thresholds()
TOP = 3  # policy quotes kept per row


@dataclass(frozen=True)
class Regulation:
    """A regulation's register and the vectors of its rows and of their items, in order."""

    document_id: UUID
    title: str
    rows: Sequence[ObligationRow]
    vectors: npt.NDArray[np.float32]  # one per row: its text (a lead-in with its items)
    item_vectors: npt.NDArray[np.float32]  # one per item of every row, rows in order


def part_of(row: ObligationRow) -> str:
    if row.section:
        return " › ".join(row.section.split(" › ")[:SECTION_DEPTH])
    return row.rule.split(".")[0] if row.rule else "(no section)"


def row_text(row: ObligationRow) -> str:
    """What a rule row is matched on: its sentence, and its items after a lead-in."""
    if row.items:
        return " ".join([row.text, *(i.text for i in row.items)])
    return row.text


def _normalised(m: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    return (m / np.where(norms == 0, 1, norms)).astype(np.float32)


def closeness(rule_vectors: npt.NDArray[np.float32], rule_texts: Sequence[str],
              unit_vectors: npt.NDArray[np.float32],
              unit_words: Sequence[frozenset[str]]) -> npt.NDArray[np.float32]:
    """(rules × units) blended closeness in [0, 1]."""
    if not len(rule_texts) or not len(unit_words):
        return np.zeros((len(rule_texts), len(unit_words)), dtype=np.float32)
    cosine = _normalised(rule_vectors) @ _normalised(unit_vectors).T
    blended: npt.NDArray[np.float32] = ((1 - LEXICAL_WEIGHT) * np.clip(cosine, 0, 1)
                                        + LEXICAL_WEIGHT * _overlaps(rule_texts, unit_words)
                                        ).astype(np.float32)
    return blended


def _overlaps(rule_texts: Sequence[str],
              unit_words: Sequence[frozenset[str]]) -> npt.NDArray[np.float32]:
    """lexical.overlap for every pair, as one product of word-incidence matrices."""
    rule_words = [content_words(t) for t in rule_texts]
    vocabulary = {w: i for i, w in enumerate(sorted(set().union(*rule_words)))}
    rules = np.zeros((len(rule_words), len(vocabulary)), dtype=np.float32)
    for row, words in enumerate(rule_words):
        rules[row, [vocabulary[w] for w in words]] = 1
    units = np.zeros((len(unit_words), len(vocabulary)), dtype=np.float32)
    for row, words in enumerate(unit_words):
        units[row, [vocabulary[w] for w in words if w in vocabulary]] = 1
    sizes = np.maximum(rules.sum(axis=1, keepdims=True), 1)
    shared: npt.NDArray[np.float32] = (rules @ units.T / sizes).astype(np.float32)
    return shared


def _item_closeness(item_vectors: npt.NDArray[np.float32], item_texts: Sequence[str],
                    unit_vectors: npt.NDArray[np.float32],
                    unit_words: Sequence[frozenset[str]]) -> npt.NDArray[np.float32]:
    """Closeness of a list's items: a policy sentence that uses most of a short item's words
    restates it ("full name, date of birth, nationality…" meets "(b) date of birth"), however
    little the embedding of a long sentence resembles a three-word item's."""
    blended = closeness(item_vectors, item_texts, unit_vectors, unit_words)
    used = _overlaps(item_texts, unit_words)
    out: npt.NDArray[np.float32] = np.where(used >= CONTAINED, np.maximum(blended, used),
                                            blended).astype(np.float32)
    return out


def _severity(row: ObligationRow, status: CoverageStatus, uncertain: bool) -> Severity:
    levels: tuple[Severity, ...] = ("Critical", "High", "Medium", "Low")
    base = {"conflicting": 1, "missing": 2, "partial": 2}.get(status, 3)
    if row.strength == "prohibition":
        base -= 1
    elif row.strength == "recommendation":
        base += 1
    if uncertain:
        base += 1
    return levels[max(0, min(3, base))]


def rule_named(rule: str | None) -> str:
    """How a fix names a rule: "rule 4.5.1"; a label that names its kind ("Article 33",
    "Rule 5.2") as it is."""
    if not rule:
        return "the rule"
    return rule if rule[:1].isalpha() else f"rule {rule}"


def _fix(row: ObligationRow, status: CoverageStatus, missing_items: Sequence[str],
         diffs: Sequence[FactDifference]) -> str:
    rule = rule_named(row.rule)
    if status == "conflicting":
        if all(d.kind == "permission" for d in diffs):
            # A duty set aside, left to choice or made conditional: the policy must require it.
            said = "; ".join(f"\"{d.policy}\"" for d in diffs)
            return (f"Reword the policy so it requires what {rule} requires (\"{diffs[0].rule}\"), "
                    f"without the exception it makes: {said}.")
        stated = "; ".join(f"the policy says {d.policy} where {rule} says {d.rule}"
                           for d in diffs)
        return f"Change the policy so it matches {rule}: {stated}."
    if status == "partial":
        # The items in the rule's words, their own closing stop or semicolon dropped.
        return (f"Add to the policy what {rule} also requires: "
                + "; ".join(item.rstrip(" .;,") for item in missing_items) + ".")
    if status == "missing":
        who = f" ({row.actor})" if row.actor else ""
        return f"Add a clause on what {rule}{who} requires; the policy says nothing close to it."
    return ""


@dataclass(frozen=True)
class Conflict:
    """A policy unit that states a fact the rule (or one of its items) contradicts."""

    diffs: list[FactDifference]
    unit: int
    score: float  # how close the unit is to the rule (or to the item)


def _facts_conflict(rule_facts: Sequence[TypedFact], scores: npt.NDArray[np.float32],
                    units: Sequence[PolicyUnit], related: float,
                    top: int = TOP) -> Conflict | None:
    """The contradictions of the closest related unit that states a conflicting fact."""
    if not rule_facts:
        return None
    for index in np.argsort(-scores)[:top]:
        if scores[index] < related:
            break
        found = differences(rule_facts, units[int(index)].facts)
        if found:
            return Conflict(found, int(index), float(scores[index]))
    return None


# A policy sentence that leaves to someone's choice what the rule requires: "may be accepted
# at the discretion of", "may allow the business to proceed"; or that makes it conditional
# where the rule is not: "are informed only if the authority instructs us".
_DISCRETION = re.compile(r"\bmay\s+(?:be\s+[a-z]+(?:ed|en|de)|allow|decide|choose|waive|"
                         r"permit|approve|accept|proceed|defer)\b|"
                         r"\bat\s+(?:the|its|their|his|her)\s+(?:sole\s+)?discretion\b",
                         re.IGNORECASE)
_ONLY_IF = re.compile(r"\bonly\s+(?:if|where|when|once|after)\b", re.IGNORECASE)


def _weakened(row: ObligationRow, unit: PolicyUnit) -> list[FactDifference]:
    """The policy's closest sentence (mutually closest) puts off what the rule says to do at
    once, turns the rule's duty into a choice, or adds a condition the rule does not have."""
    if row.strength != "mandatory" or _DISCRETION.search(row.text):
        return []
    later = put_off(row.facts, unit.facts, row_text(row))
    if later is not None:
        return [later]
    choice = _DISCRETION.search(unit.text)
    if choice is not None:
        return [FactDifference(kind="permission", policy=choice[0], rule=duty_of(row))]
    only = _ONLY_IF.search(unit.text)
    if only is not None and not _ONLY_IF.search(row_text(row)):
        return [FactDifference(kind="permission", policy=_clause_from(unit.text, only.start()),
                               rule=duty_of(row))]
    return []


CONDITION_WORDS = 14
DUTY_WORDS = 12  # of a rule, from its modal on, shown against what a policy says instead


def duty_of(row: ObligationRow) -> str:
    """What the rule requires, in its own words from its modal on ("must ensure that the
    foreign jurisdiction has …")."""
    at = row.text.find(row.modal) if row.modal else -1
    words = " ".join(row.text[max(at, 0):].split()).split(" ")
    return " ".join(words[:DUTY_WORDS]) + ("…" if len(words) > DUTY_WORDS else "")


def _clause_from(text: str, start: int) -> str:
    """The condition a sentence adds, from ``start`` to its clause's end, cut on a word."""
    words = " ".join(text[start:].split()).split(" ")
    clause = " ".join(words[:CONDITION_WORDS]).split(",")[0].rstrip(".;")
    return clause + ("…" if len(words) > CONDITION_WORDS and "," not in " ".join(
        words[:CONDITION_WORDS]) else "")


def conflict_of(row: ObligationRow, scores: npt.NDArray[np.float32],
                item_scores: npt.NDArray[np.float32] | None, units: Sequence[PolicyUnit],
                related: float, mutual: int | None = None) -> Conflict | None:
    """The row's contradiction: of the rule's own facts, else of the first item's, else a
    duty the mutually closest policy sentence weakens."""
    found = _facts_conflict(_comparable(row.facts), scores, units, related)
    if found is None and item_scores is not None:
        for item, s in zip(row.items, item_scores, strict=True):
            found = _facts_conflict(_comparable(_item_facts(item.text)), s, units, related)
            if found is not None:
                break
    if found is None and mutual is not None and scores[mutual] >= related:
        weakened = _weakened(row, units[mutual])
        if weakened:
            found = Conflict(weakened, mutual, float(scores[mutual]))
    return found


def suspected_of(row: ObligationRow, scores: npt.NDArray[np.float32],
                 item_scores: npt.NDArray[np.float32] | None,
                 units: Sequence[PolicyUnit]) -> Conflict | None:
    """A contradiction too far out to prove: a policy sentence among the rule's LOOSE_TOP
    closest, at least LOOSE close, states a fact the rule (or an item of it) contradicts -
    "within 45 calendar days" against "within twenty business days" in a sentence the
    embedding places among several. A proposal for the review queue, never a finding."""
    found = _facts_conflict(_comparable(row.facts), scores, units, LOOSE, LOOSE_TOP)
    if found is None and item_scores is not None:
        for item, s in zip(row.items, item_scores, strict=True):
            found = _facts_conflict(_comparable(_item_facts(item.text)), s, units, LOOSE,
                                    LOOSE_TOP)
            if found is not None:
                break
    return found


def _comparable(facts: Sequence[TypedFact]) -> list[TypedFact]:
    # Permitted vs prohibited is left out: whether a policy's "may" is about the act the rule
    # forbids is more than closeness tells (on the development policies it mostly was not).
    return [f for f in facts if f.kind != "permission"]


@dataclass(frozen=True)
class Mapped:
    """One regulation's rows (its checked parts), its scope and the parties left out."""

    rows: list[CoverageRow]
    scope: list[ScopePart]
    excluded: list[ExcludedParty]


def rows_for(regulation: Regulation, units: Sequence[PolicyUnit],
             unit_vectors: npt.NDArray[np.float32], *, thresholds: Thresholds = SHIPPED,
             focus_words: frozenset[str] = frozenset()) -> Mapped:
    """The matrix rows of one regulation (its checked parts), its scope and the parties whose
    obligations do not apply; their rows in the checked parts stay in the matrix, marked."""
    unit_words = [content_words(u.text) for u in units]
    binding = [i for i, r in enumerate(regulation.rows) if r.strength != "recommendation"]
    scores = closeness(regulation.vectors[binding], [row_text(regulation.rows[i])
                                                    for i in binding],
                       unit_vectors, unit_words)
    best = scores.max(axis=1) if scores.size else np.zeros(len(binding), dtype=np.float32)
    # How much closer a sentence is to a rule than to the rules it is closest to in general:
    # a sentence close to every rule ("We are the controller of our customers' data") says
    # little about any one of them.
    hub = np.sort(scores, axis=0)[-HUB_RULES:].mean(axis=0) if scores.size else scores
    applies = applicability([regulation.rows[i] for i in binding], [float(b) for b in best],
                            thresholds.related)
    item_offsets = np.cumsum([0, *(len(r.items) for r in regulation.rows)])
    parts: dict[str, list[int]] = {}
    for position, index in enumerate(binding):
        parts.setdefault(part_of(regulation.rows[index]), []).append(position)
    scope: list[ScopePart] = []
    checked: set[str] = set()
    for part, positions in parts.items():
        top = max(positions, key=lambda p: best[p])
        named = bool(focus_words) and bool(focus_words & content_words(part))
        if named or best[top] >= thresholds.scope:
            checked.add(part)
            rule = regulation.rows[binding[top]].rule or "?"
            reason = ("named in the audit's focus" if named else
                      f"the policy speaks of it (closest obligation {rule} at {best[top]:.2f})")
        else:
            reason = f"no policy text close to its obligations (closest {best[top]:.2f})"
        scope.append(ScopePart(document_id=regulation.rows[binding[top]].document_id,
                               document_title=regulation.title, section=part,
                               checked=part in checked, reason=reason,
                               obligations=len(positions)))
    prepared: list[tuple[ObligationRow, npt.NDArray[np.float32],
                         npt.NDArray[np.float32] | None, Conflict | None, bool]] = []
    for position, index in enumerate(binding):
        row = regulation.rows[index]
        # A contradiction is the policy's own statement, wherever the rule stands; an
        # omission counts only in a part the policy takes up.
        in_scope = part_of(row) in checked
        top_unit = int(np.argmax(scores[position])) if scores.shape[1] else None
        # Mutually closest: the rule's best sentence, and no rule much closer to that sentence
        # (a rule restated in a sub-rule ties with it).
        mutual = top_unit if top_unit is not None and scores[position, top_unit] >= float(
            scores[:, top_unit].max()) - NEAR_TIE else None
        if not applies.applies(row):
            if in_scope:
                prepared.append((row, scores[position], None, None, True))
            continue
        if not in_scope and mutual is None and not _states_facts(row):
            continue
        item_scores = _item_closeness(
            regulation.item_vectors[item_offsets[index]:item_offsets[index + 1]],
            [i.text for i in row.items], unit_vectors, unit_words) if row.items and len(
                units) else None
        conflict = conflict_of(row, scores[position], item_scores, units, thresholds.related,
                               mutual)
        if in_scope or conflict is not None:
            prepared.append((row, scores[position], item_scores, conflict, in_scope))
    # A policy sentence that states one fact against several rules (one retention period
    # against every record-keeping rule) contradicts the rule it is closest to, not each.
    owner: dict[int, tuple[float, int]] = {}
    for n, (_, _, _, conflict, _) in enumerate(prepared):
        if conflict is not None and conflict.score > owner.get(conflict.unit, (-1.0, -1))[0]:
            owner[conflict.unit] = (conflict.score, n)
    # The same sentence contradicting a rule of another part almost as closely: which rule
    # it contradicts is not shown, only that it contradicts one - the row is contested.
    contested = {unit for unit, (score, n) in owner.items() if any(
        c is not None and c.unit == unit and m != n and part_of(r) != part_of(prepared[n][0])
        and c.score >= score - RIVAL for m, (r, _, _, c, _) in enumerate(prepared))}
    rows = []
    for n, (row, s, item_scores, conflict, in_scope) in enumerate(prepared):
        kept = conflict if conflict is not None and owner[conflict.unit][1] == n else None
        # A fact stated against a rule of a part the policy does not take up, by a sentence
        # closer to another rule: which duty the sentence is about is not shown.
        far = kept is not None and not in_scope and float(s[kept.unit]) < float(
            scores[:, kept.unit].max()) - NEAR_TIE
        if kept is not None and (kept.unit in contested or far):
            rows.append(row_of(row, s, units, item_scores, kept, thresholds).model_copy(
                update={"contested": True}))
        elif not applies.applies(row):
            party = applies.party(row) or ""
            rows.append(row_of(row, s, units, None, None, thresholds).model_copy(update={
                "review": "not_applicable", "reason": applies.reason(party)}))
        elif in_scope or kept is not None:
            found = row_of(row, s, units, item_scores, kept, thresholds)
            suspected = suspected_of(row, s, item_scores, units) if kept is None else None
            rows.append(found.model_copy(update={
                "specificity": round(float((s - hub).max()), 4) if s.size else 0.0,
                **(_suspicion(found, suspected, units) if suspected is not None else {})}))
    return Mapped(rows, scope, _excluded(regulation, applies))


def _suspicion(row: CoverageRow, suspected: Conflict, units: Sequence[PolicyUnit]
               ) -> dict[str, object]:
    """The suspected contradiction, its sentence first among the row's candidates."""
    shown = policy_quote(units[suspected.unit], suspected.score)
    quotes = [q for q in row.policy_quotes if shown is None or q.chunk_id != shown.chunk_id
              or q.quote != shown.quote]
    return {"suspected": tuple(suspected.diffs),
            "policy_quotes": tuple(([shown] if shown is not None else []) + quotes)[:TOP]}


def _excluded(regulation: Regulation, applies: Applicability) -> list[ExcludedParty]:
    out = []
    for party in sorted(applies.excluded, key=lambda p: -applies.parties[p].rows):
        rules = [r.rule for r in regulation.rows if r.rule and applies.party(r) == party]
        out.append(ExcludedParty(document_id=regulation.document_id, actor=party,
                                 obligations=applies.parties[party].rows,
                                 rules=tuple(dict.fromkeys(rules))[:5],
                                 reason=applies.reason(party)))
    return out


def row_of(row: ObligationRow, scores: npt.NDArray[np.float32], units: Sequence[PolicyUnit],
         item_scores: npt.NDArray[np.float32] | None, conflict: Conflict | None,
         thresholds: Thresholds) -> CoverageRow:
    best = float(scores.max()) if scores.size else 0.0
    order = [int(i) for i in np.argsort(-scores)[:TOP]] if scores.size else []
    diffs = conflict.diffs if conflict is not None else []
    missing_items: list[str] = []
    margin = 0.0
    if item_scores is not None:
        item_best = item_scores.max(axis=1)
        # Items are judged against their siblings: the scale of closeness varies with the
        # drafting, while an item the policy leaves out stands out of its list.
        median = float(np.median(item_best))
        for at in np.argsort(item_best):  # the item furthest from the policy first
            item, top = row.items[int(at)], float(item_best[at])
            if top < thresholds.item_covered or (
                    len(row.items) >= 3 and top < min(thresholds.item_high,
                                                      median - thresholds.item_gap)):
                missing_items.append(f"{item.label} {item.text}".strip())
        if missing_items and len(row.items) >= 3:
            # How far the worst item stands below the next: one item left out of a list the
            # policy otherwise restates stands out of it.
            low = np.sort(item_best)
            margin = float(low[1] - low[0])
    status: CoverageStatus
    if diffs:
        status = "conflicting"
    elif row.items and len(missing_items) < len(row.items) and (
            missing_items or best >= thresholds.covered):
        # A list is judged by its items: some met, some not is partial, whatever the lead-in.
        status = "partial" if missing_items else "covered"
    elif best < thresholds.covered or missing_items:
        status = "missing"
    else:
        status = "covered"
    quotes: list[PolicyQuote] = []
    if conflict is not None:  # the contradicting sentence first, however close it is
        shown = policy_quote(units[conflict.unit], conflict.score)
        quotes += [shown] if shown is not None else []
    quotes += [q for q in (policy_quote(units[i], float(scores[i])) for i in order
                           if scores[i] >= thresholds.related
                           and (conflict is None or i != conflict.unit)) if q is not None]
    uncertain = abs(best - thresholds.covered) < 0.05
    return CoverageRow(
        obligation=row, status=status, policy_quotes=tuple(quotes[:TOP]),
        missing_items=tuple(missing_items), differing_facts=tuple(diffs),
        severity=None if status == "covered" else _severity(row, status, uncertain),
        fix=_fix(row, status, missing_items, diffs), score=round(min(1.0, max(0.0, best)), 4),
        confidence=round(min(1.0, max(0.0, 0.5 + (best / 2 if status == "conflicting"
                                                  else margin if status == "partial"
                                                  else 0.0))), 4),
        uncertain=uncertain)


def _states_facts(row: ObligationRow) -> bool:
    return bool(_comparable(row.facts)) or any(_comparable(_item_facts(i.text))
                                               for i in row.items)


def _item_facts(text: str) -> tuple[TypedFact, ...]:
    return facts_of(text, "mandatory")
