"""Measures bounded by risk tiers: an easing the rules allow for low risk only, read against a
policy that grants it to other clients (the licence is checked for that and nothing else, and
is never an omission); and a required measure a policy holds back for the higher tiers."""

from __future__ import annotations

from uuid import uuid4

import numpy as np
import pytest

from regintel.chat.offline import (
    alignment,
    conflicts,
    facets,
    matching,
    obligations,
    risk_tiers,
)
from regintel.chat.offline.drafts import Candidate, Draft
from regintel.chat.offline.segments import Unit

DOC = uuid4()
_SIMPLIFIED = ("A Relevant Person may undertake Simplified CDD in accordance with Rule 8.5.1 by "
               "modifying the CDD undertaken in accordance with Rule 8.3.1 for any customer "
               "assigned a low-risk rating.")
_LATER_LEAD = ("the Relevant Person does not have to fulfil the verification of the identity of "
               "a customer and Beneficial Owners obligations under the AML Rules before "
               "undertaking a Transaction where it has, on reasonable grounds, established that:")


def _unit(body: str, *, clause: str = "8.1.1.(4)", stem: str = "", start: int = 0) -> Unit:
    return Unit(DOC, 1, start, start + len(body), body, body, clause, stem, "Chapter",
                "Section", False)


@pytest.mark.parametrize(("rule", "condition"), [
    (_SIMPLIFIED, "any customer assigned a low-risk rating"),
    (f"{_LATER_LEAD} there is little risk of money laundering and that risk is effectively "
     "managed; and", "little risk of money laundering"),
    ("A Relevant Person must undertake Enhanced CDD for any customer assigned a high-risk "
     "rating.", None),
    ("A Relevant Person must keep records of low-risk customers for six years.", None),
])
def test_an_easing_allowed_for_low_risk_only(rule: str, condition: str | None) -> None:
    assert risk_tiers.for_low_risk(rule) == condition


@pytest.mark.parametrize(("policy", "beyond"), [
    ("Simplified CDD may be applied to a client rated low or medium risk where the engagement "
     "partner is satisfied that the reduced measures are proportionate.", "low or medium risk"),
    ("Verification of the identity of Beneficial Owners may be completed after the first "
     "Transaction for a client of any risk rating.", "of any risk rating"),
    ("Simplified CDD may not be applied to medium-risk clients.", None),
    ("Simplified CDD may be applied only to low-risk clients; medium-risk clients get "
     "standard CDD.", None),
    ("Medium-risk clients may be reviewed every two years.", None),  # no easing of CDD
])
def test_a_policy_that_takes_the_easing_further(policy: str, beyond: str | None) -> None:
    assert risk_tiers.beyond_low_risk(policy) == beyond


def test_a_licence_for_low_risk_is_checked_but_is_no_duty() -> None:
    licence = _unit(_SIMPLIFIED)
    assert matching.checkable(licence)
    assert not obligations.is_obligation(licence)
    assert obligations.limits_an_easing(licence)


def _drafts(rule: Unit, policy: list[Unit], closeness: list[float]) -> list[Draft]:
    return alignment.match([Candidate(rule, "Theme", 0.8)],
                           np.array([[1.0, 0.0]], dtype=np.float32), policy,
                           np.array([[c, (1 - c * c) ** 0.5] for c in closeness],
                                    dtype=np.float32),
                           title="AML", addressee="Relevant Person")


def test_an_easing_granted_beyond_low_risk_contradicts_the_licence() -> None:
    said = _unit("Simplified CDD may be applied to a client rated low or medium risk where the "
                 "engagement partner is satisfied that the reduced measures are proportionate.",
                 clause="6.3.1")
    [draft] = _drafts(_unit(_SIMPLIFIED), [said], [0.7])
    assert draft.kind == "conflict" and draft.key[-1] == "easing"
    assert draft.focus == "any customer assigned a low-risk rating"
    assert draft.policy_focus == "low or medium risk"


def test_a_licence_is_neither_an_omission_nor_a_duty_to_fall_short_of() -> None:
    rule = _unit(f"{_LATER_LEAD} there is little risk of money laundering and that risk is "
                 "effectively managed; and", clause="8.2.1.(3)(i)")
    # Close enough for an omission (between TOPIC and COVERED), and prompt where the rule
    # sets no time: neither is read on a licence.
    distant = _unit("The Finance team reconciles the client accounts every month.",
                    clause="9.9.1")
    prompt = _unit("If we have doubts about the customer's information, we promptly obtain "
                   "fresh verification of the identity of the customer.", clause="7.4.1",
                   start=100)
    assert _drafts(rule, [distant], [0.5]) == []
    assert _drafts(rule, [prompt], [0.7]) == []
    assert facets.read(rule.body).eases_low == "little risk of money laundering"


# -- a required measure held back for the higher tiers -------------------------------------------
@pytest.mark.parametrize(("policy", "held"), [
    ("Beneficial Owners are checked for PEP status only where the client has been rated high "
     "risk; for other clients the check covers the client.",
     ({"high"}, "only where the client has been rated high risk")),
    ("Independent verification of Source of Wealth is reserved for PEP relationships.",
     ({"pep"}, "reserved for PEP relationships")),
    ("Enhanced CDD applies only where the client is rated high risk or is a PEP.",
     ({"high", "pep"}, "only where the client is rated high risk or is a PEP")),
    ("Simplified CDD may be applied only to low-risk clients.", None),
])
def test_a_measure_held_back_for_the_higher_tiers(
        policy: str, held: tuple[set[str], str] | None) -> None:
    found = risk_tiers.held_to(policy)
    assert (found if found is None else (set(found[0]), found[1])) == held


_EDD = ("Where a Relevant Person is required to undertake Enhanced CDD, having assigned a "
        "customer a high-risk rating or it or its Beneficial Owners is a PEP, then, in addition "
        "to CDD under Rule 8.3.1, it must:")


@pytest.mark.parametrize(("rule", "policy", "narrower"), [
    # The rule binds for every customer: any tier narrows it.
    ("A Relevant Person must take reasonable measures to determine whether any Beneficial "
     "Owners of the customer is a PEP.",
     "Beneficial Owners are checked for PEP status only where the client is rated high risk.",
     True),
    # The rule binds for both tiers: a policy that keeps one leaves the other out.
    (f"{_EDD} identify and verify: the Source of Wealth;",
     "Independent verification of Source of Wealth is reserved for PEP relationships.", True),
    (f"{_EDD} identify and verify: the Source of Wealth;",
     "Source of Wealth is verified only where the client is rated high risk or is a PEP.",
     False),
])
def test_a_tier_narrower_than_the_rules(rule: str, policy: str, narrower: bool) -> None:
    r, p = facets.read(rule), facets.read(policy)
    assert ("tier" in conflicts.comparable(rule, r, p)) is narrower


def test_the_item_held_back_is_what_the_finding_quotes() -> None:
    lead = _unit(_EDD, clause="8.4.1")
    items = [_unit(body, clause=f"8.4.1(c)({n})", stem="identify and verify:", start=k * 50)
             for k, (n, body) in enumerate([("i", "the Source of Funds; and"),
                                            ("ii", "the Source of Wealth;")], start=1)]
    said = _unit("For high-risk clients who are not PEPs, the Source of Wealth is taken from "
                 "the client's declaration, and independent verification of Source of Wealth "
                 "is reserved for PEP relationships.", clause="6.1.3", start=500)
    [draft] = alignment.match([Candidate(lead, "Theme", 0.8)],
                              np.array([[1.0, 0.0]], dtype=np.float32), [said],
                              np.array([[0.7, 0.71]], dtype=np.float32), title="AML",
                              addressee="Relevant Person", context=[lead, *items])
    assert draft.key[-1] == "tier" and draft.target_clause == "8.4.1(c)(ii)"
