"""Items a policy's list leaves out. A rule that enumerates what must be done ("in addition
to CDD it must: (a) … (g) …") is often answered by a policy list that restates it item by
item ("For these clients the Firm requires: (a) … (f) …"). The list as a whole reads close to
the rule, so the rule looks covered; the item the policy dropped is found only item by item:
a rule item that no item of the policy's counterpart list restates, and that the policy does
not say anywhere else either, is a gap of its own ("8.4.1(f)"). Items of one subject read
alike ("the settlor of the trust", "any Natural Person who has control over the trust"), so
the lists are paired one to one: an item whose close policy items each restate another rule
item more closely is left out too ("8.3.5(2)(e)").

Items are compared by their own words (the lead-ins left out: "must:" and "requires:" would
make every item of the one list look like every item of the other)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from regintel.chat.offline import obligations
from regintel.chat.offline.drafts import Candidate, Draft, clamp, clause_number
from regintel.chat.offline.lexical import terms, tfidf
from regintel.chat.offline.omissions import MIN_GAP_CHARS
from regintel.chat.offline.segments import Unit
from regintel.chat.offline.word_weights import Weights

# Cosine of two items' own words at or above which one restates the other. These values
# were read off the development policy (Oryx; `python -m regintel.bench.audit_tuning dev`),
# never the demo policy: items of a counterpart list that restate a rule item score 0.5-0.95
# against it, paraphrases as loose as "written sign-off from a member of the Executive
# Committee" for "obtain the approval of Senior Management" about 0.4, dropped items below.
ITEM_MATCH = 0.5
PAIRED = 0.4  # the least a policy item's closeness to the rule item it accounts for
# A policy item this close to a rule item restates it even when it is paired with another:
# one item may say two ("timely and unrestricted access to all information on customers, …
# and any transaction" for both "access to information … about … a customer" and "access
# to relevant information about the features of the Transaction").
SHARED = 0.7
# A dropped item the policy says in a clause of its own is not a gap: the item's closeness
# to every other clause (in context, as the alignment embeds it) is below this.
ELSEWHERE = 0.6
MIN_RULE_ITEMS = 3  # a shorter list is read as a whole (alignment.match)
MIN_RESTATED = 2  # items a policy list must restate - more than half of the rule's - to
# be the rule's counterpart


@dataclass(frozen=True)
class PolicyList:
    quoted: Unit  # what a finding quotes: the list (its lead-in first), or its first item
    items: list[Unit]
    units: frozenset[int]  # the policy clauses (indexes) the list is made of


@dataclass(frozen=True)
class Enumerations:
    """The lists to read item by item: each rule's items (indexes into the obligations
    checked) with the policy lists about the rule (indexes into ``lists``)."""

    rules: list[tuple[list[int], list[int]]]
    lists: list[PolicyList]

    def texts(self, found: Sequence[Candidate]) -> list[str]:
        """What is embedded: the rule items, then the policy lists' items."""
        return self.rule_texts(found) + self.list_texts()

    def rule_texts(self, found: Sequence[Candidate]) -> list[str]:
        return [found[i].unit.body for group, _ in self.rules for i in group]

    def list_texts(self) -> list[str]:
        return [item.body for plist in self.lists for item in plist.items]

    def __bool__(self) -> bool:
        return bool(self.rules)


def rule_item(unit: Unit) -> tuple[int, str] | None:
    """The rule (page, clause number) whose list ``unit`` is an item of, if it is one that
    asks something itself (an item ending in ":" is a lead-in read through its own items)."""
    base = clause_number(unit)
    if unit.stem and unit.clause and base != unit.clause and not unit.body.endswith(":"):
        return unit.page, base or ""
    return None


def sublist(unit: Unit) -> tuple[int, str] | None:
    """The nested list ``unit`` is an item of ("6.1.1(b)" for "6.1.1(b)(v)"), as (page,
    clause); None for an item of the rule's own list. A rule's items at every depth are read
    together as its list (``rule_item``), and a nested list is read on its own as well: a
    policy that restates six of the seven vulnerabilities of 6.1.1(b) restates too few of
    6.1.1's items as a whole for its list to be paired with the rule's."""
    key = rule_item(unit)
    parent = _PARENT.sub("", unit.clause or "")
    if key is None or parent == key[1]:
        return None
    return unit.page, parent


_PARENT = re.compile(r"\([^()]*\)$")
_NESTED = re.compile(r"\([a-zA-Z]{1,4}\)$")  # a clause number ending in an item's letter


def policy_lists(policy: Sequence[Unit]) -> list[tuple[int, list[Unit], set[int]]]:
    """The policy's lists of two items or more (a list cut by a page break read as one):
    the index of the clause a finding quotes, the items, the clauses the list is made of."""
    by_lead: dict[str, tuple[int, list[Unit], set[int]]] = {}
    for j, unit in enumerate(policy):
        if len(unit.parts) > 1:
            entry = by_lead.setdefault(unit.parts[0].body, (j, [], set()))
            entry[1].extend(unit.parts[1:])
        elif unit.stem:
            entry = by_lead.setdefault(unit.stem, (j, [], set()))
            entry[1].append(unit)
        else:
            continue
        entry[2].add(j)
    return [(j, items, units) for j, items, units in by_lead.values() if len(items) >= 2]


def enumerations(found: Sequence[Candidate], vectors: npt.NDArray[np.float32],
                 policy: Sequence[Unit], policy_vectors: npt.NDArray[np.float32], *,
                 related: float, nested: float) -> Enumerations:
    """The rules among ``found`` to read item by item - at least MIN_RULE_ITEMS items that
    each ask something (an item that is itself a lead-in, "(c) identify and verify:", is
    read through its own items, and its items as a list of their own too: ``sublist``) -
    each with the policy's lists (of two items or more, a list cut by a page break read as
    one) that are about it: its items are on average at least ``related`` close to the list
    (``nested`` for a nested list), by the vectors in context the alignment uses. A nested
    list's items share their subject more than a rule's do, so more policy lists come
    ``related`` close to them; at that bar, item omissions of risk factors and
    vulnerabilities were read against a respondent bank's checklist and a BRA's list, on
    the development policies, and crowded planted gaps out under the cap."""
    groups: dict[tuple[int, str], list[int]] = {}
    for i, candidate in enumerate(found):
        for key in (rule_item(candidate.unit), sublist(candidate.unit)):
            if key is not None:
                groups.setdefault(key, []).append(i)
    candidates = policy_lists(policy)
    rules: list[tuple[list[int], list[int]]] = []
    used: dict[int, int] = {}  # candidate list → its index in the result
    for (_, number), group in groups.items():
        if len(group) < MIN_RULE_ITEMS or not candidates:
            continue
        closeness = vectors[group] @ policy_vectors[[j for j, _, _ in candidates]].T
        bar = nested if _NESTED.search(number) else related
        about = [k for k, mean in enumerate(closeness.mean(axis=0)) if mean >= bar]
        if about:
            rules.append((group, [used.setdefault(k, len(used)) for k in about]))
    chosen = sorted(used, key=used.__getitem__)
    return Enumerations(rules, [PolicyList(policy[candidates[k][0]], candidates[k][1],
                                           frozenset(candidates[k][2])) for k in chosen])


def omitted(found: Sequence[Candidate], policy: Sequence[Unit],
            policy_vectors: npt.NDArray[np.float32], lists: Enumerations,
            vectors: npt.NDArray[np.float32], *, title: str, addressee: str = "",
            skip: set[str] | frozenset[str] = frozenset()) -> list[Draft]:
    """A gap for each rule item that the rule's counterpart list in the policy leaves out.
    ``vectors`` embed ``lists.texts(found)``; ``policy_vectors`` are the policy's clauses in
    context (a left-out item may be said in a clause of its own); ``skip``: the clauses
    already found (an item the alignment reported is not reported twice)."""
    if not lists:
        return []
    n_rule = sum(len(group) for group, _ in lists.rules)
    rule_vectors, item_vectors = vectors[:n_rule], vectors[n_rule:]
    owner = np.repeat(np.arange(len(lists.lists)), [len(p.items) for p in lists.lists])
    _, vocabulary, idf = tfidf([f"{u.stem} {u.body}" for u in policy] +
                               [c.unit.body for c in found])
    weigh = Weights(vocabulary, idf, ignore=set(terms(addressee)))
    drafts: list[Draft] = []
    at = 0
    for group, about in lists.rules:
        rows = rule_vectors[at:at + len(group)]
        at += len(group)
        mine = np.isin(owner, about)
        similarity = rows @ item_vectors[mine].T
        chosen = _counterpart(similarity, owner[mine])
        if chosen is None:
            continue
        plist = lists.lists[chosen]
        own = similarity[:, owner[mine] == chosen]
        pairs = _paired(own)
        free = [c for c in range(own.shape[1]) if c not in pairs.values()]
        others = [j for j in range(len(policy)) if j not in plist.units]
        elsewhere = rows @ policy_vectors[others].T if others else np.zeros((len(group), 1))
        for r, i in enumerate(group):
            unit = found[i].unit
            # Only the policy items no closer rule item took can restate this one. An item
            # that names a person or thing counts: it is what a list of those to identify
            # asks for ("(e) any Natural Person who has control over the trust").
            best = float(own[r, free].max()) if free else 0.0
            if best >= ITEM_MATCH or float(own[r].max()) >= SHARED or r in pairs or \
                    unit.clause in skip or len(unit.body) < MIN_GAP_CHARS or \
                    not obligations.is_obligation(unit) or \
                    float(elsewhere[r].max()) >= ELSEWHERE or weigh.restated(unit.body, policy):
                continue
            if all(d.target_clause != unit.clause for d in drafts):
                drafts.append(_item_gap(found[i], plist, best, title))
    return drafts


def _paired(similarity: npt.NDArray[np.float32]) -> dict[int, int]:
    """The rule items (rows) that the policy's items (columns) restate one to one, closest
    pairs first, each pair at least PAIRED close: a policy item that paraphrases one rule
    item ("written sign-off from a member of the Executive Committee" for "obtain the
    approval of Senior Management") accounts for it, but for one item only."""
    left = similarity.astype(np.float64, copy=True)
    paired: dict[int, int] = {}
    while left.size and float(left.max()) >= PAIRED:
        r, c = np.unravel_index(int(left.argmax()), left.shape)
        paired[int(r)] = int(c)
        left[r, :] = -np.inf
        left[:, c] = -np.inf
    return paired


def _counterpart(similarity: npt.NDArray[np.float32],
                 owner: npt.NDArray[np.intp]) -> int | None:
    """The policy list that restates more than half of a rule's items (at least
    MIN_RESTATED), the one that restates most; None when no list does."""
    best: tuple[int, float, int] | None = None
    for j in np.unique(owner).tolist():
        closest = similarity[:, owner == j].max(axis=1)
        restated = int((closest >= ITEM_MATCH).sum())
        if restated < MIN_RESTATED or restated * 2 <= len(closest):
            continue
        score = (restated, float(closest.mean()), j)
        if best is None or score[:2] > best[:2]:
            best = score
    return None if best is None else best[2]


def _item_gap(candidate: Candidate, plist: PolicyList, best: float, title: str) -> Draft:
    """The omission of one item. The policy's list is quoted (it is where the item belongs);
    the surer the omission (the further its closest item), the higher the confidence."""
    unit = candidate.unit
    level = obligations.severity(unit, kind="gap")
    ref = obligations.reference(title, unit.clause)
    where = clause_number(plist.quoted) or clause_number(plist.items[0])
    return Draft(candidate, unit, unit.clause, "gap", level, plist.quoted, best,
                 clamp(0.5 + (ITEM_MATCH - best)),
                 obligations.consequence(ref, level, kind="gap"),
                 obligations.item_suggestion(ref, unit, where),
                 key=("gap", unit.clause or unit.text))
