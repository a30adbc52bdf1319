"""The offline audit's general mechanisms, on small made-up texts: annual due dates, facts read
part by part, conditional permissions as obligations, amounts written currency last, the
policy's statements of fact looked up across the whole regulation, clauses worded like the
obligation read for a contradiction, and the findings cap that keeps contradictions."""

from __future__ import annotations

from uuid import uuid4

import numpy as np
import pytest

from regintel.chat.offline import alignment, facets, matching, obligations
from regintel.chat.offline.segments import Unit

DOC = uuid4()


def _unit(body: str, *, clause: str = "1.1", stem: str = "", section: str = "Section",
          page: int = 1, start: int = 0) -> Unit:
    return Unit(DOC, page, start, start + len(body), body, body, clause, stem, "Chapter",
                section, False)


# -- facts -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("rule", "policy", "conflicts"), [
    ("must submit the AML Return to the Regulator by the end of April each year",
     "the MLRO submits it to the FSRA by 30 June each year", True),
    ("must submit the return by 31 March", "submits it by the end of February", False),
    ("must file it no later than March 31", "files it by the end of March", False),
])
def test_annual_due_dates(rule: str, policy: str, conflicts: bool) -> None:
    r, p = facets.read(rule), facets.read(policy)
    assert "date" in facets.comparable(rule, r, p)
    assert (facets.conflict("date", r, p) is not None) is conflicts


def test_may_as_a_verb_is_no_month() -> None:
    assert facets.read("The report may be sent by the MLRO").due_dates == ()


def test_a_sentence_is_read_part_by_part() -> None:
    text = ("When it relies on an introducer, the Firm obtains the CDD information within 30 "
            "days of opening the account, and the introducer must supply copies without delay")
    first, second = facets.parts(text)
    assert facets.read(first).deadline_days == (30.0,) and facets.read(first).urgent is None
    assert facets.read(second).urgent == "without delay"
    assert facets.parts("one fact only") == ["one fact only"]


@pytest.mark.parametrize(("text", "amount"), [
    ("transactions of 15,000 US dollars or more", ("USD", 15000.0)),
    ("55,000 AED", ("AED", 55000.0)),
    ("1 million dirhams", ("AED", 1_000_000.0)),
    ("USD15,000", ("USD", 15000.0)),
])
def test_amounts_with_the_currency_either_side(text: str, amount: tuple[str, float]) -> None:
    assert facets.read(text).amounts == (amount,)


def test_an_urgency_speaks_of_a_deadline() -> None:
    assert facets.mentions("deadline", facets.read("supplied on request without delay"))
    assert not facets.mentions("period", facets.read("supplied on request without delay"))


def test_a_conditional_permission_is_an_obligation() -> None:
    stem = "Where a Relevant Person seeks to rely on a Person in (1) it may only do so if:"
    assert obligations.is_obligation(_unit("it immediately obtains the CDD information;",
                                           stem=stem))
    assert not obligations.is_obligation(_unit("an Authorised Person;",
                                               stem="A Relevant Person may rely on:"))


# -- the part of a clause a fact is read on ---------------------------------------------------
def test_the_part_about_the_obligations_act_decides() -> None:
    clause = _unit("When it relies on an introducer, the Firm obtains the introducer's CDD "
                   "information within 30 days of opening the account, and the introducer "
                   "must confirm that certified copies of the documents will be supplied on "
                   "request without delay.")
    stated = alignment._Stated.of(clause)
    from regintel.chat.offline.lexical import terms

    def judged(rule_text: str) -> facets.Conflict | None:
        rule = facets.read(rule_text)
        said = stated.on("deadline", rule_text, rule, set(terms(rule_text)))
        return None if said is None else facets.conflict("deadline", rule, said)

    found = judged("it may only do so if it immediately obtains the necessary CDD "
                   "information from the third party")
    assert found is not None and found.policy == "within 30 days"
    assert judged("it may only do so if certified copies of the documents will be "
                  "available from the third party on request without delay") is None


# -- where contradictions are looked for -------------------------------------------------------
def test_a_clause_worded_like_the_obligation_is_read_first() -> None:
    similarity = np.array([0.60, 0.40, 0.56, 0.20], dtype=np.float32)
    worded = np.array([0.10, 0.65, 0.05, 0.25])
    near = alignment._near(similarity, worded, alignment.SHIPPED)
    assert [j for j, _ in near] == [1, 0, 2]  # 3: neither close nor worded alike
    assert dict(near)[1] == pytest.approx(0.40)


def test_statements_of_fact_are_looked_up_across_the_regulation() -> None:
    rules = [
        _unit("A Relevant Person must provide training to all Employees at least annually.",
              clause="13.2.1", section="Frequency", start=0),
        _unit("These records must be kept for at least six years from the date on which the "
              "training was given.", clause="13.3.2", section="Record-keeping", start=100),
        _unit("A Relevant Person must appoint an MLRO.", clause="12.1.1", section="MLRO",
              start=200),
        _unit("The Regulator may grant a waiver.", clause="4.6.1.Guidance.1",
              section="Guidance", start=300),
    ]
    policy = [
        _unit("Records of each training session are retained for three years from the date "
              "of the session.", clause="11.4", section="Staff training"),
        _unit("Staff must follow this Manual.", clause="1.4", section="Purpose"),
    ]
    found = matching.anchored(rules, policy, applies=lambda u: True)
    assert "13.3.2" in {c.unit.clause for c in found}
    assert {c.theme for c in found} == {"Staff training"}  # the clause's own section
    assert "12.1.1" not in {c.unit.clause for c in found}  # nothing in common
    assert matching.anchored(rules, policy[1:], applies=lambda u: True) == []  # no fact


def test_a_statement_of_fact() -> None:
    assert matching.states_fact(_unit("retained for three years"))
    assert matching.states_fact(_unit("may, where the Head of Operations considers it "
                                      "appropriate, be effected"))
    assert not matching.states_fact(_unit("Staff must follow this Manual."))
