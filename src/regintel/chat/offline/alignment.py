"""Each obligation against the policy's closest clauses: covered, contradicted (a conflict,
contradictions.py) or left out (a gap, omissions.py). Closeness is the cosine of the MiniLM
vectors of the two units in context (section heading, lead-in, text); the thresholds are
drafts.Thresholds."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from itertools import pairwise

import numpy as np
import numpy.typing as npt

from regintel.chat.offline import contradictions, facets, omissions, ties
from regintel.chat.offline.drafts import (
    SHIPPED,
    Candidate,
    Draft,
    Thresholds,
    clause_number,
    is_item_of,
)
from regintel.chat.offline.lexical import terms, tfidf
from regintel.chat.offline.segments import Unit
from regintel.chat.offline.word_weights import Weights

TOP_CLAUSES = 8  # closest clauses read for each obligation
# A clause worded like the obligation (tf-idf cosine at least LEX_RELATED, among its LEX_TOP
# closest in words) is read for a contradiction too, however low its vector similarity:
# MiniLM rates "reviews the effectiveness of its financial crime policies … every two years"
# 0.32 from "must review the effectiveness of its AML/TFS policies … at least annually".
# Clauses are read closest first, by the cosine plus LEX_WEIGHT × the words' cosine.
LEX_TOP = 2
LEX_RELATED = 0.3
LEX_WEIGHT = 0.5
MUTUAL = 3  # a "may"/approval conflict needs the obligation among the clause's closest


def match(found: Sequence[Candidate], vectors: npt.NDArray[np.float32],
          policy: Sequence[Unit], policy_vectors: npt.NDArray[np.float32], *, title: str,
          addressee: str = "", context: Sequence[Unit] = (),
          thresholds: Thresholds = SHIPPED) -> list[Draft]:
    """One draft finding per obligation that the policy contradicts or leaves out; items of
    one rule that say the same thing about the same policy clause are reported once.
    ``context`` is all of the target's units: a conflict read in an item's lead-in ("must
    report semi-annually … on:") quotes the lead-in."""
    if not found or not policy:
        return []
    rulebook = contradictions.Rulebook.of(context)
    similarity = vectors @ policy_vectors.T
    mutual = np.argsort(-similarity, axis=0)[:MUTUAL]  # each clause's closest obligations
    # Word overlap finds the paraphrases the vectors rate low (see Weights.coverage).
    words, vocabulary, idf = tfidf([f"{u.stem} {u.body}" for u in policy] +
                                   [c.unit.body for c in found])
    weigh = Weights(vocabulary, idf, ignore=set(terms(addressee)))
    pieces = [omissions.pieces(c.unit) for c in found]
    flat = [p for ps in pieces for p in ps]
    piece_words, _, _ = tfidf([p.body for p in flat], vocabulary=vocabulary, idf=idf)
    lexical = piece_words @ words[:len(policy)].T
    rule_words, _, _ = tfidf([f"{c.unit.stem} {c.unit.body}" for c in found],
                             vocabulary=vocabulary, idf=idf)
    worded = rule_words @ words[:len(policy)].T
    policy_facets = [contradictions.Stated.of(u) for u in policy]
    # Acts worded apart by design are read on every clause about the subject (see
    # ties.TIES): vectors rate them lower than clauses that merely share the topic.
    tied = [[j for j, f in enumerate(policy_facets) if clause_side(f.whole)]
            for _, clause_side in ties.TIES]
    evident = [[j for j, f in enumerate(policy_facets) if clause_side(f.whole)]
               for _, clause_side in ties.EVIDENT]
    position = {u: j for j, u in enumerate(policy)}
    siblings: dict[tuple[int, str], list[int]] = {}
    for j, u in enumerate(policy):
        siblings.setdefault(_clause_key(u), []).append(j)
    around = _with_previous(policy, siblings)
    named = Counter(t for f in policy_facets for t in set(terms(f.whole.text)))
    rules = [facets.read(f"{c.unit.stem} {c.unit.body}") for c in found]
    items_of = omissions.items_of_lead_ins(found)
    drafts: list[Draft] = []
    at = 0
    for i, (row, candidate) in enumerate(zip(similarity, found, strict=True)):
        order = np.argsort(-row)[:TOP_CLAUSES]
        closest = [(j, float(row[j])) for j in order]
        reading = _near(row, worded[i], thresholds)
        # A sentence is about the subject when its clause, or the clause before it in its
        # section, is (the clause's first sentence says what it is about: "Any Employee who
        # … suspects … must record it …. An employee who has a suspicion must first raise it
        # with his or her head of desk, who …"; see _with_previous).
        sides = [clauses for (rule_side, _), clauses in zip(ties.TIES, tied, strict=True)
                 if rule_side(rules[i])]
        related = [j for clauses in sides for j in clauses
                   if max(float(row[k]) for k in around[_clause_key(policy[j])])
                   >= thresholds.topic]
        related += [j for (rule_side, _), clauses in zip(ties.EVIDENT, evident, strict=True)
                    if rule_side(rules[i]) for j in clauses]
        related += contradictions.doing_the_forbidden(rules[i], policy_facets, named)
        # The statement that led to the rule (by its words, section heading included) is
        # about it, however far apart the vectors put the two.
        if candidate.anchor is not None and candidate.anchor in position:
            related.append(position[candidate.anchor])
        read = {k for k, _ in reading}
        reading += [(j, float(row[j])) for j in dict.fromkeys(related) if j not in read]
        # The other sentences of a clause read, when they are about the subject too: a
        # clause may state the rule and then its exception ("Electronic copies are sent
        # immediately …. When the FSRA wishes to inspect archived paper files, … within ten
        # Business Days"). Read last, in the order their clauses are read, so a closer
        # sentence still decides a kind first. (Without the TOPIC floor: a yearly update of
        # due diligence read against "must transfer … without undue delay", on a
        # development policy.)
        read.update(related)
        reading += [(k, float(row[k])) for k in dict.fromkeys(
            k for j, _ in reading for k in siblings[_clause_key(policy[j])])
            if k not in read and row[k] >= thresholds.topic]
        draft = contradictions.contradiction(i, candidate, rules[i], reading, policy,
                                             policy_facets, mutual, title, weigh, rulebook,
                                             thresholds)
        best = closest[0][1]
        n = len(pieces[i])
        if draft is None and thresholds.topic <= best < thresholds.covered and \
                omissions.reportable_gap(candidate):
            near = {j for j, _ in closest[:3]}
            restated = [weigh.restated(piece.body, (policy[j] for j in near | set(
                            np.argsort(-lexical[at + k])[:3].tolist())))
                        for k, piece in enumerate(pieces[i])]
            # Said in other words: half the rule's items (or the rule) restated.
            if sum(restated) * 2 < n:
                draft = omissions.gap(candidate, policy[closest[0][0]], best, title, thresholds)
            # A lead-in asks nothing by itself ("… includes the following information:"):
            # what the policy leaves out is one of its items, when one is left out. (When
            # the policy comes close to every item, the list stays the finding: a policy
            # that names each item only to exempt it - "the address is not transmitted" -
            # is close to all of them.)
            k = omissions.left_out_item(items_of[i], found, similarity, worded, policy, weigh,
                                        thresholds) if draft is not None and items_of.get(i) \
                else None
            if draft is not None and k is not None:
                draft = replace(omissions.gap(found[k], policy[closest[0][0]], best, title,
                                              thresholds), key=draft.key)
        at += n
        if draft is not None:
            drafts.append(draft)
    return _distinct(drafts)


def _clause_key(unit: Unit) -> tuple[int, str]:
    """The clause a policy sentence belongs to (its page and number; unnumbered sentences
    stand alone)."""
    return (unit.page, unit.clause or f"@{unit.start}")

def _with_previous(policy: Sequence[Unit], siblings: dict[tuple[int, str], list[int]]
                   ) -> dict[tuple[int, str], list[int]]:
    """Each clause's sentences with those of the clause before it in its section, items
    included: a clause often goes on from the one before ("The AED 55,000 threshold is
    measured against each invoice separately" after the list that sets it; "Deposits … are
    not refundable" after "If we cannot complete KYC …"), and is about what that one is
    about."""
    numbered: dict[tuple[str, str], list[int]] = {}  # (section, "4.1.1") → its sentences
    for j, u in enumerate(policy):
        if u.clause:
            numbered.setdefault((u.section, u.clause.split("(")[0]), []).append(j)
    previous: dict[tuple[str, str], tuple[str, str]] = {}
    for earlier, later in pairwise(numbered):
        if earlier[0] == later[0]:
            previous[later] = earlier
    around: dict[tuple[int, str], list[int]] = {}
    for key, own in siblings.items():
        u = policy[own[0]]
        before = previous.get((u.section, (u.clause or "").split("(")[0]))
        around[key] = own + (numbered[before] if before is not None else [])
    return around


def _distinct(drafts: list[Draft]) -> list[Draft]:
    """One finding per rule and kind of contradiction; one per contradicting policy
    statement and kind (the closest rule - correcting the statement settles the others);
    no gap for a rule already found contradicted; one gap per rule, on the item the policy
    comes least close to (the surest omission of the rule's)."""
    def best(key: Callable[[Draft], tuple[str, ...]], pool: list[Draft], *,
             closest: bool = True) -> list[Draft]:
        kept: dict[tuple[str, ...], Draft] = {}
        for d in pool:
            held = kept.get(key(d))
            sign = 1.0 if closest else -1.0
            if held is None or sign * held.similarity < sign * d.similarity:
                kept[key(d)] = d
        return [d for d in pool if kept[key(d)] is d]

    conflicts = best(lambda d: d.key, [d for d in drafts if d.kind == "conflict"])
    conflicts = best(lambda d: (d.key[-1], d.policy_unit.text if d.policy_unit else ""),
                     conflicts)
    # A conflict read in a list's lead-in is said again, more exactly, by a conflict of one
    # of its items with the same policy statement ("its MLRO … is responsible for the
    # following matters:" and "(f) responding promptly …", both against "answered by the
    # Managing Director rather than the MLRO, … once the monthly meeting has approved it").
    conflicts = [d for d in conflicts if not any(
        is_item_of(e.target_clause, d.target_clause) and e.policy_unit is not None and
        d.policy_unit is not None and e.policy_unit.text == d.policy_unit.text
        for e in conflicts)]
    contradicted = {clause_number(d.target_unit) for d in conflicts}
    gaps = best(lambda d: d.key, [d for d in drafts if d.kind == "gap" and
                                   clause_number(d.target_unit) not in contradicted],
                closest=False)
    return [d for d in drafts if d in conflicts or d in gaps]


def _near(similarity: npt.NDArray[np.float32], worded: npt.NDArray[np.float64],
          thresholds: Thresholds) -> list[tuple[int, float]]:
    """The clauses to read an obligation's contradiction in, closest first: its TOP_CLAUSES
    closest by vectors at least RELATED close, and its LEX_TOP closest by words at least
    LEX_RELATED alike; each with its vector similarity."""
    chosen = {int(j) for j in np.argsort(-similarity)[:TOP_CLAUSES]
              if similarity[j] >= thresholds.related}
    chosen |= {int(j) for j in np.argsort(-worded)[:LEX_TOP] if worded[j] >= LEX_RELATED}
    ordered = sorted(chosen, key=lambda j: -(similarity[j] + LEX_WEIGHT * worded[j]))
    return [(j, float(similarity[j])) for j in ordered]
