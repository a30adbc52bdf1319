"""A term the rules define that a policy narrows, and an exemption's condition it weakens: each
read on the rule, which is no duty, for that alone."""

from __future__ import annotations

from uuid import uuid4

import numpy as np
import pytest

from regintel.chat.offline import (
    alignment,
    conflicts,
    definitions,
    facets,
    matching,
    obligations,
)
from regintel.chat.offline.drafts import Candidate
from regintel.chat.offline.segments import Unit

_PARTNER = "In the context of this Rule, a 'business partner' includes:"


def _unit(body: str, *, clause: str, stem: str = "", start: int = 0) -> Unit:
    return Unit(uuid4(), 1, start, start + len(body), body, body, clause, stem, "Chapter",
                "Section", False)


@pytest.mark.parametrize(("policy", "narrows"), [
    ("Members of the Group are not business partners for the purposes of this section.", True),
    ("A protector whose only power is to veto a decision of the trustees is not treated as "
     "having business partner status.", True),
    ("Business partners are identified before we start working with them.", False),
    ("The introducer is not a customer of the firm.", False),
])
def test_a_policy_that_narrows_a_defined_term(policy: str, narrows: bool) -> None:
    rule = f"{_PARTNER} a member of the Relevant Person's Group;"
    r, p = facets.read(rule), facets.read(policy)
    assert r.defines == "business partner"
    assert ("definition" in conflicts.comparable(rule, r, p)) is narrows


def test_a_definition_is_checked_but_is_no_duty() -> None:
    item = _unit("a member of the Relevant Person's Group;", clause="9.2.1.(2)(b)",
                 stem=_PARTNER)
    assert matching.checkable(item) and not obligations.is_obligation(item)
    said = _unit("Members of the Group are not business partners for the purposes of this "
                 "section and are not subject to business partner due diligence.",
                 clause="8.2.2", start=300)
    [draft] = alignment.match([Candidate(item, "Theme", 0.8)],
                              np.array([[1.0, 0.0]], dtype=np.float32), [said],
                              np.array([[0.7, 0.71]], dtype=np.float32), title="AML",
                              addressee="Relevant Person")
    assert draft.key[-1] == "definition" and draft.target_clause == "9.2.1.(2)(b)"


def test_control_as_the_rules_define_it() -> None:
    assert definitions.defined("For the purposes of (2)(e) “control” means a power") == "control"
    phrase = definitions.not_counted("A protector is not treated as having control of the "
                                     "trust and is recorded for information only.")
    assert phrase is not None and definitions.narrows("control", phrase)


# -- an exemption's condition weakened ----------------------------------------------------------
_RELY = ("Where a Relevant Person relies on a member of its Group, such Group member need not "
         "meet the condition in (3)(c) if: a written statement is received from the introducing "
         "member confirming that:")


def test_an_exemptions_condition_is_checked_for_its_period_only() -> None:
    item = _unit("the identification evidence will be kept for at least six years.",
                 clause="9.1.1.(4)(c)(iii)", stem=_RELY)
    assert matching.checkable(item) and not obligations.is_obligation(item)
    assert obligations.sets_a_condition(item)
    weaker = _unit("The written confirmation must also state that the identification evidence "
                   "will be kept by the introducing Group member for at least five years.",
                   clause="8.3.4", start=400)
    vectors = np.array([[1.0, 0.0]], dtype=np.float32)
    close = np.array([[0.7, 0.71]], dtype=np.float32)
    [draft] = alignment.match([Candidate(item, "Theme", 0.8)], vectors, [weaker],
                              close, title="AML", addressee="Relevant Person")
    assert draft.kind == "conflict" and draft.key[-1] == "period"
    # A condition is not a duty: a policy that never mentions it leaves nothing out.
    other = _unit("The MLRO reviews the Group's procedures every year.", clause="2.1.1",
                  start=600)
    assert alignment.match([Candidate(item, "Theme", 0.8)], vectors, [other],
                           np.array([[0.5, 0.87]], dtype=np.float32), title="AML",
                           addressee="Relevant Person") == []


@pytest.mark.parametrize(("policy", "weaker"), [
    ("The same applies to a company that is at least 51 per cent owned by the UAE Federal "
     "Government, because the state is then its ultimate owner.", True),
    ("The same applies to a company that is 100% owned by the UAE Federal Government.", False),
])
def test_an_exemption_taken_on_a_smaller_share(policy: str, weaker: bool) -> None:
    rule = ("A Relevant Person is not required to comply with Rule 8.3.1(1)(b) if the customer "
            "is: a Body Corporate that is wholly-owned by the Federal Government of the U.A.E.")
    r, p = facets.read(rule), facets.read(policy)
    assert r.exempt_share == (100.0, "wholly-owned")
    assert ("share" in conflicts.comparable(rule, r, p)) is weaker
