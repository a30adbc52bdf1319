"""The offline audit's general mechanisms, on small made-up texts: annual due dates, facts read
part by part, conditional permissions as obligations, amounts written currency last, the
policy's statements of fact looked up across the whole regulation, clauses worded like the
obligation read for a contradiction, the findings cap that keeps contradictions, timing
written loosely or in hours ("periodically", "within 48 hours", "45 days after"), and more
headings than themes sharing the evidence instead of being dropped."""

from __future__ import annotations

from dataclasses import replace
from uuid import uuid4

import numpy as np
import pytest

from regintel.chat.offline import (
    alignment,
    audit,
    conflicts,
    facets,
    matching,
    measures,
    obligations,
)
from regintel.chat.offline.contradictions import Stated
from regintel.chat.offline.drafts import SHIPPED, Candidate, Draft
from regintel.chat.offline.omissions import MIN_GAP_EVIDENCE
from regintel.chat.offline.segments import Unit
from regintel.domain.documents import ChunkHit, DocType

DOC = uuid4()


def _unit(body: str, *, clause: str = "1.1", stem: str = "", section: str = "Section",
          page: int = 1, start: int = 0) -> Unit:
    return Unit(DOC, page, start, start + len(body), body, body, clause, stem, "Chapter",
                section, False)


def _drafts_on(rule: Unit, policy: list[Unit], closeness: list[float]) -> list[Draft]:
    """alignment.match's drafts for one rule against ``policy``, whose clauses are each
    ``closeness`` close to the rule by the vectors."""
    return alignment.match([Candidate(rule, "Theme", 0.8)],
                           np.array([[1.0, 0.0]], dtype=np.float32), policy,
                           np.array([[c, (1 - c * c) ** 0.5] for c in closeness],
                                    dtype=np.float32),
                           title="AML", addressee="Relevant Person")


# -- facts -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("rule", "policy", "clashes"), [
    ("must submit the AML Return to the Regulator by the end of April each year",
     "the MLRO submits it to the FSRA by 30 June each year", True),
    ("must submit the return by 31 March", "submits it by the end of February", False),
    ("must file it no later than March 31", "files it by the end of March", False),
])
def test_annual_due_dates(rule: str, policy: str, clashes: bool) -> None:
    r, p = facets.read(rule), facets.read(policy)
    assert "date" in conflicts.comparable(rule, r, p)
    assert (conflicts.conflict("date", r, p) is not None) is clashes


def test_may_as_a_verb_is_no_month() -> None:
    assert facets.read("The report may be sent by the MLRO").due_dates == ()


def test_a_sentence_is_read_part_by_part() -> None:
    text = ("When it relies on an introducer, the Firm obtains the CDD information within 30 "
            "days of opening the account, and the introducer must supply copies without delay")
    first, second = facets.parts(text)
    assert facets.read(first).deadline_days == (30.0,) and facets.read(first).urgent is None
    assert facets.read(second).urgent == "without delay"
    assert facets.parts("one fact only") == ["one fact only"]


@pytest.mark.parametrize(("kind", "rule", "policy", "clashes"), [
    # the same figure, its edge left out: a holding of exactly 25 % escapes the policy
    ("percent", "owns or controls 25% or more of the shares or voting rights;",
     "every individual who owns or controls more than 25 per cent of its shares.", True),
    ("amount", "an occasional Transaction of an amount equal to or more than USD15,000;",
     "We apply CDD to occasional transactions over USD 15,000.", True),
    ("amount", "a Transaction in cash that amounts to USD15,000 or more;",
     "cash transactions in excess of USD 15,000 are reported.", True),
    ("amount", "a transfer of USD 1 million or more;",
     "transfers of more than USD 1,000,000 are reviewed.", True),
    # the edge kept, or a lower threshold: as strict or stricter
    ("percent", "owns or controls 25% or more of the shares or voting rights;",
     "every individual who owns 25 per cent or more of its shares.", False),
    ("percent", "owns or controls 25% or more of the shares or voting rights;",
     "every individual who owns more than 10 per cent of its shares.", False),
    ("amount", "an amount equal to or more than USD15,000;",
     "transactions of at least USD 15,000 and those equal to or more than USD 15,000.", False),
    ("amount", "a cash payment of USD15,000 or more;",
     "cash payments over AED 15,000 and of USD 15,000 or more are reported.", False),
    ("amount", "a cash payment of USD15,000 or more;",
     "cash payments equal to or over USD 15,000 are reported.", False),
])
def test_a_threshold_that_leaves_out_its_own_figure(kind: conflicts.Kind, rule: str, policy: str,
                                                    clashes: bool) -> None:
    r, p = facets.read(rule), facets.read(policy)
    assert kind in conflicts.comparable(rule, r, p)
    found = conflicts.conflict(kind, r, p)
    assert (found is not None) is clashes
    if found is not None:
        assert found.rule in rule and found.policy in policy


@pytest.mark.parametrize(("text", "amount"), [
    ("transactions of 15,000 US dollars or more", ("USD", 15000.0)),
    ("55,000 AED", ("AED", 55000.0)),
    ("1 million dirhams", ("AED", 1_000_000.0)),
    ("USD15,000", ("USD", 15000.0)),
])
def test_amounts_with_the_currency_either_side(text: str, amount: tuple[str, float]) -> None:
    assert facets.read(text).amounts == (amount,)


def test_an_urgency_speaks_of_a_deadline() -> None:
    assert conflicts.mentions("deadline", facets.read("supplied on request without delay"))
    assert not conflicts.mentions("period", facets.read("supplied on request without delay"))


def test_a_conditional_permission_is_an_obligation() -> None:
    stem = "Where a Relevant Person seeks to rely on a Person in (1) it may only do so if:"
    assert obligations.is_obligation(_unit("it immediately obtains the CDD information;",
                                           stem=stem))
    assert not obligations.is_obligation(_unit("an Authorised Person;",
                                               stem="A Relevant Person may rely on:"))


def test_a_responsibility_kept_is_an_obligation() -> None:
    assert obligations.is_obligation(_unit(
        "A Relevant Person which outsources elements of its CDD to a service provider remains "
        "responsible for compliance with such obligations."))


# -- the part of a clause a fact is read on ---------------------------------------------------
def test_the_part_about_the_obligations_act_decides() -> None:
    clause = _unit("When it relies on an introducer, the Firm obtains the introducer's CDD "
                   "information within 30 days of opening the account, and the introducer "
                   "must confirm that certified copies of the documents will be supplied on "
                   "request without delay.")
    stated = Stated.of(clause)
    from regintel.chat.offline.lexical import terms

    def judged(rule_text: str) -> conflicts.Conflict | None:
        rule = facets.read(rule_text)
        said = stated.on("deadline", rule_text, rule, set(terms(rule_text)))
        return None if said is None else conflicts.conflict("deadline", rule, said)

    found = judged("it may only do so if it immediately obtains the necessary CDD "
                   "information from the third party")
    assert found is not None and found.policy == "within 30 days"
    assert judged("it may only do so if certified copies of the documents will be "
                  "available from the third party on request without delay") is None


# -- where contradictions are looked for -------------------------------------------------------
def test_a_clause_worded_like_the_obligation_is_read_first() -> None:
    similarity = np.array([0.60, 0.40, 0.56, 0.20], dtype=np.float32)
    worded = np.array([0.10, 0.65, 0.05, 0.25])
    near = alignment._near(similarity, worded, SHIPPED)
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
    # Each rule remembers the statement that led to it: the alignment reads that statement
    # for a contradiction, however far apart the vectors put the two.
    assert {c.anchor for c in found} == {policy[0]}


def test_a_rule_left_out_is_reported_on_the_item_the_policy_comes_least_close_to() -> None:
    lead = "A Relevant Person must:"
    items = [_unit("identify where secrecy or data protection legislation might restrict "
                   "access without delay to its records;", clause="4.5.6(a)", stem=lead),
             _unit("where such legislation exists, obtain certified copies of the relevant "
                   "records and keep them in the ADGM.", clause="4.5.6(b)", stem=lead,
                   start=200)]
    policy = [_unit("The Financial Crime Officer reports to the Board twice a year.",
                    clause="2.3.1", section="Reporting")]
    found = [Candidate(item, "Record keeping", 0.8) for item in items]
    # Both between TOPIC and COVERED: both left out; item (a) further from the policy.
    vectors = np.array([[0.47, 0.88], [0.54, 0.84]], dtype=np.float32)
    drafts = alignment.match(found, vectors, policy, np.array([[1.0, 0.0]], dtype=np.float32),
                             title="AML", addressee="Relevant Person")
    assert [(d.kind, d.target_clause) for d in drafts] == [("gap", "4.5.6(a)")]


def _hit(start: int, end: int, score: float) -> ChunkHit:
    return ChunkHit(ordinal=0, text="x" * (end - start), page_start=1, page_end=1,
                    char_start=start, char_end=end, chunk_id=uuid4(), document_id=DOC,
                    document_title="AML", document_version="1",
                    doc_type=DocType.REGULATION, score=score)


def test_a_themes_next_hits_count_by_their_rank_under_its_best() -> None:
    """A heading's search puts nearly all of the calibrated relevance on its first hit; the
    rule it is about, second with 0.004, is still read."""
    rules = [_unit("A Relevant Person must identify the trustees of a trust.",
                   clause="8.3.5.(2)", section="Trusts", start=0)]
    found = matching.candidates(rules, {"Trusts and foundations": [
        _hit(500, 700, 0.93), _hit(0, 150, 0.004)]}, limit=10, applies=lambda u: True)
    assert [c.unit.clause for c in found] == ["8.3.5.(2)"]
    assert found[0].score == pytest.approx(0.93 * matching.RANK_DECAY)
    # A theme whose best hit is weak lends nothing to the next ones.
    assert matching.candidates(rules, {"About us": [_hit(500, 700, 0.2), _hit(0, 150, 0.1)]},
                               limit=10, applies=lambda u: True) == []


def test_an_obligation_in_a_relevant_section_is_not_marked_down_by_a_weak_hit() -> None:
    rules = [_unit("A Relevant Person must provide AML training to all Employees at least "
                   "annually.", clause="13.2.1", section="Training", start=0),
             _unit("All relevant details of the training must be recorded, including the "
                   "dates when the training was given.", clause="13.3.1", section="Training",
                   start=200)]

    found = matching.candidates(rules, {"Staff training": [_hit(0, 150, 0.9)],
                                        "Records": [_hit(200, 320, 0.3)]},
                                limit=10, applies=lambda u: True)
    scores = {c.unit.clause: c.score for c in found}
    assert scores["13.3.1"] == pytest.approx(0.9 * matching.EXPANSION_DISCOUNT)


def test_in_a_long_section_a_relevant_chunk_reads_the_rest_of_its_rule() -> None:
    """A section too long to read whole: a strongly relevant chunk that starts inside rule
    8.3.5 reads 8.3.5's other items, and not the section's other rules."""
    filler = [_unit(f"A Relevant Person must keep record {k}.", clause=f"8.3.{k + 10}",
                    section="CDD", start=1000 + 100 * k)
              for k in range(matching.SMALL_CHAPTER)]
    rule = [_unit("any Natural Person who has control over the trust.", clause="8.3.5.(2)(e)",
                  stem="The Relevant Person must identify:", section="CDD", start=0),
            _unit("A Relevant Person must identify the trust's controllers' owners.",
                  clause="8.3.5.(4)", section="CDD", start=200)]
    found = matching.candidates(rule + filler, {"Trusts": [_hit(200, 300, 0.6)]},
                                limit=100, applies=lambda u: True)
    assert {c.unit.clause: c.score for c in found} == {
        "8.3.5.(4)": 0.6, "8.3.5.(2)(e)": pytest.approx(0.6 * matching.EXPANSION_DISCOUNT)}


def test_a_section_no_theme_reached_is_still_read() -> None:
    """Themes come from the policy, so a subject it never mentions is never searched; the
    obligations of a section no theme reached, in a chapter one did, are read anyway, as
    just relevant enough for an omission to be asserted. A reached section is not read
    twice, and a chapter nothing reached is left alone (outside the policy's scope)."""
    reached = _unit("A Relevant Person must provide AML training to all Employees.",
                    clause="4.6.1", section="Training", start=0)
    silent = _unit("A Relevant Person must ensure that it does not prejudice an Employee who "
                   "discloses any information regarding money laundering.",
                   clause="4.8.1", section="Employee disclosures", start=200)
    other_kind = _unit("A DNFBP must notify the Regulator of any change to its name.",
                       clause="4.9.1", section="DNFBP notifications", start=400)
    elsewhere = replace(_unit("A Relevant Person must file its return by the end of April.",
                              clause="15.1.1", section="Returns", start=600),
                        chapter="Another chapter")
    units = [reached, silent, other_kind, elsewhere]
    applies = lambda u: "DNFBP" not in u.body  # noqa: E731 - as obligations.applicability
    # A weakly relevant hit (no expansion): only the rule it holds.
    found = matching.candidates(units, {"Staff training": [_hit(0, 150, 0.4)]}, limit=10,
                                applies=applies)
    assert [c.unit.clause for c in found] == ["4.6.1"]

    extra = matching.unreached(units, found, limit=10, applies=applies)
    assert [(c.unit.clause, c.theme, c.score) for c in extra] == [
        ("4.8.1", "Employee disclosures", MIN_GAP_EVIDENCE)]
    assert matching.unreached(units, found, limit=0, applies=applies) == []


def test_a_statement_of_fact() -> None:
    assert matching.states_fact(_unit("retained for three years"))
    assert matching.states_fact(_unit("may, where the Head of Operations considers it "
                                      "appropriate, be effected"))
    assert not matching.states_fact(_unit("Staff must follow this Manual."))
    assert matching.states_fact(_unit("Responsibility for the checks rests with the Provider."))
    assert not matching.states_fact(_unit("Responsibility for the checks rests with the MLRO."))


# -- periods, deadlines and frequencies as policies write them ---------------------------------
@pytest.mark.parametrize(("rule", "policy", "kind", "said"), [
    ("must review the effectiveness of its AML/TFS policies at least annually",
     "reviews the effectiveness of its financial crime policies periodically", "frequency",
     "periodically"),
    ("must update the business risk assessment at least annually",
     "updates the business risk assessment from time to time", "frequency",
     "from time to time"),
    ("must inform the Regulator in writing immediately",
     "the MLRO informs the FSRA in writing within 48 hours", "deadline", "within 48 hours"),
    ("must submit the report within 30 days of the end of the year",
     "submits the report to the Board 45 days after the year end", "deadline", "45 days"),
    ("must promptly notify the Regulator of any change in its legal status",
     "changes to its legal status are notified to the FSRA with the annual licence renewal",
     "cycle", "annual"),
    ("must immediately notify the Regulator in writing of the breach",
     "breaches are reported to the FSRA in the quarterly compliance return", "cycle",
     "quarterly"),
])
def test_weaker_timing_as_policies_write_it(rule: str, policy: str, kind: conflicts.Kind,
                                            said: str) -> None:
    r, p = facets.read(rule), facets.read(policy)
    assert kind in conflicts.comparable(rule, r, p)
    found = conflicts.conflict(kind, r, p)
    assert found is not None and found.policy == said


@pytest.mark.parametrize(("rule", "policy", "kind"), [
    ("must inform the Regulator immediately", "informs the FSRA within twenty-four hours",
     "deadline"),  # a day still reads as prompt
    ("must review its policies at least annually",
     "reviews its policies periodically and at least once a year", "frequency"),
    # Two named months six apart are a half-yearly round, whatever else the clause says.
    ("The MLRO must report semi-annually to the Governing Body",
     "In January and July the Officer gives the Board a written report covering the results "
     "of the annual effectiveness review", "frequency"),
    ("The MLRO must report semi-annually to the Governing Body",
     "The Officer gives the Board a Half-Year Report on the annual review", "frequency"),
])
def test_timing_that_meets_the_rule(rule: str, policy: str, kind: conflicts.Kind) -> None:
    r, p = facets.read(rule), facets.read(policy)
    assert kind in conflicts.comparable(rule, r, p)
    assert conflicts.conflict(kind, r, p) is None


@pytest.mark.parametrize(("rule", "policy"), [
    ("must promptly notify the Regulator of any change",
     "notifies the FSRA of each change immediately and confirms it in the annual return"),
    ("must report semi-annually to the Board", "reports to the Board each year"),  # frequency
    ("must promptly notify the Regulator", "notifies the FSRA within two days of the change"),
    # a round that also runs on the event
    ("must promptly notify the Regulator of any change", "The MLRO reviews this Manual at least "
     "once a year and whenever the law or our business changes materially."),
    ("must immediately perform the CDD itself", "update the CDD information at least yearly and "
     "on every new transaction;"),
])
def test_a_cycle_is_only_read_against_a_bare_promptness(rule: str, policy: str) -> None:
    assert "cycle" not in conflicts.comparable(rule, facets.read(rule), facets.read(policy))


def test_an_open_frequency_is_read_only_where_no_interval_is() -> None:
    assert facets.read("The rating is revisited at each periodic review").frequency_months == ()
    assert measures.OPEN not in facets.read("reviewed periodically, every two years"
                                            ).frequency_months
    assert facets.read("Records are kept for five years after the account is closed"
                       ).deadline_days == ()  # a retention period, not a deadline
    assert matching.states_fact(_unit("The Board reviews this Manual from time to time."))


# -- themes -------------------------------------------------------------------------------------
def test_more_headings_share_the_evidence_budget() -> None:
    assert audit.per_theme(audit.MAX_THEMES) == audit.PER_THEME
    assert audit.per_theme(audit.MAX_THEMES * 2) == audit.PER_THEME // 2
    assert audit.per_theme(audit.MAX_QUERIES * 10) == audit.MIN_PER_THEME
    assert audit.per_theme(3) == audit.PER_THEME


# -- a duty softened to an effort ------------------------------------------------------------
def _modality(rule_text: str, policy_text: str) -> list[Draft]:
    rule = _unit(rule_text, clause="8.2.1", section="Timing of CDD")
    policy = [_unit(policy_text, clause="4.4.1", section="Timing of verification"),
              _unit("The MLRO reports to the Board.", clause="3.1", section="Governance")]
    found = [Candidate(rule, "Timing of verification", 0.8)]
    vectors = np.array([[1.0, 0.0]], dtype=np.float32)
    policy_vectors = np.array([[0.8, 0.6], [0.0, 1.0]], dtype=np.float32)
    return alignment.match(found, vectors, policy, policy_vectors, title="AML",
                           addressee="Relevant Person")


@pytest.mark.parametrize(("policy", "softened"), [
    ("The Firm endeavours to complete CDD before it undertakes any Transaction for a "
     "customer.", "endeavours to"),
    ("Where possible, the Firm completes CDD before it undertakes any Transaction for a "
     "customer.", "Where possible"),
])
def test_a_duty_softened_to_an_effort_is_a_conflict(policy: str, softened: str) -> None:
    [draft] = _modality("A Relevant Person must complete CDD before it undertakes any "
                        "Transaction for a customer.", policy)
    assert draft.kind == "conflict" and draft.policy_focus == softened


def test_an_effort_the_rule_allows_is_no_conflict() -> None:
    assert _modality("A Relevant Person must, where practicable, complete CDD before it "
                     "undertakes any Transaction for a customer.",
                     "Where practicable, the Firm completes CDD before it undertakes any "
                     "Transaction for a customer.") == []


def test_an_effort_about_another_act_is_no_conflict() -> None:
    assert _modality("A Relevant Person must complete CDD before it undertakes any "
                     "Transaction for a customer.",
                     "The Firm endeavours to answer client complaints within a week.") == []


def test_an_effort_is_told_from_a_judgement() -> None:
    effort = facets.read("The Firm endeavours to verify the address").discretionary
    judgement = facets.read("Transfers may, where the Head of Operations considers it "
                            "appropriate, be effected").discretionary
    assert effort is not None and measures.is_effort(effort)
    assert judgement is not None and not measures.is_effort(judgement)


# -- a risk factor set aside names the factor --------------------------------------------------
def test_a_risk_factor_set_aside_is_quoted_from_the_item_naming_it() -> None:
    """The conflict is read on the list's category ("(a) customer risk factors, including
    whether the:"), which came closest to the clause; the finding names the factor the policy
    sets aside, the item sharing the clause's rarer words (here "cash"), not another item
    that shares only "customer" and "risk"."""
    lead = ("When undertaking a risk-based assessment of a customer, a Relevant Person must "
            "take into account all relevant risk factors, including:")
    category = _unit("customer risk factors, including whether the:", clause="7.1.2.(1)(a)",
                     stem=lead, start=100)
    context = [_unit(lead, clause="7.1.2.(1)"), category,
               _unit("customer is resident in a jurisdiction of high risk;",
                     clause="7.1.2.(1)(a)(ii)", stem=lead, start=200),
               _unit("customer is a business that is cash intensive;",
                     clause="7.1.2.(1)(a)(v)", stem=lead, start=300)]
    policy = [_unit("A customer's reliance on cash takings is not treated as a risk factor.",
                    clause="5.2.3", section="Customer risk"),
              _unit("The MLRO reports to the Board.", clause="3.1", section="Governance")]
    found = [Candidate(category, "Customer risk", 0.8)]
    drafts = alignment.match(found, np.array([[1.0, 0.0]], dtype=np.float32), policy,
                             np.array([[0.8, 0.6], [0.0, 1.0]], dtype=np.float32),
                             title="AML", addressee="Relevant Person", context=context)
    [draft] = drafts
    assert draft.kind == "conflict" and draft.target_clause == "7.1.2.(1)(a)(v)"
    assert draft.quote_unit is not None and "cash intensive" in draft.quote_unit.body


# -- an omission in a list is named by its item ------------------------------------------------
def _notification(policy_text: str) -> list[Draft]:
    lead = ("A Relevant Person must ensure that the notification stipulated in (2) above "
            "includes the following information:")
    found = [Candidate(_unit(lead, clause="11.1.1.(3)"), "Sanctions", 0.8),
             Candidate(_unit("a description of the relevant activity in (2)(a), (b) "
                                       "or (c); and", clause="11.1.1.(3)(a)", stem=lead,
                                       start=120), "Sanctions", 0.8),
             Candidate(_unit("the action proposed to be taken or that has been "
                                       "taken by the Relevant Person with regard to the "
                                       "matters specified in the notification.",
                                       clause="11.1.1.(3)(b)", stem=lead, start=200),
                                 "Sanctions", 0.8)]
    policy = [_unit(policy_text, clause="9.3.1", section="Sanctions notifications")]
    # The lead-in between TOPIC and COVERED; item (a) restated in words; (b) far off.
    vectors = np.array([[0.52, 0.85], [0.50, 0.87], [0.30, 0.95]], dtype=np.float32)
    return alignment.match(found, vectors, policy, np.array([[1.0, 0.0]], dtype=np.float32),
                           title="AML", addressee="Relevant Person")


def test_an_omission_found_on_a_lead_in_names_the_item_left_out() -> None:
    drafts = _notification("The notification gives a description of the relevant activity.")
    assert [(d.kind, d.target_clause) for d in drafts] == [("gap", "11.1.1.(3)(b)")]


def test_a_list_whose_every_item_the_policy_restates_has_no_item_named() -> None:
    drafts = _notification("The notification gives a description of the relevant activity "
                           "and the action proposed to be taken or that has been taken with "
                           "regard to the matters specified in the notification.")
    assert all(d.target_clause != "11.1.1.(3)(b)" for d in drafts)


# -- notice before an event --------------------------------------------------------------------
@pytest.mark.parametrize(("rule", "policy", "clashes"), [
    ("A DNFBP must notify the Regulator in writing at least ten Business Days in advance of "
     "it ceasing to carry on the business activities.",
     "The MLRO writes to the FSRA no later than five Business Days before trading ends.", True),
    ("A DNFBP must notify the Regulator in writing at least ten Business Days in advance of "
     "it ceasing to carry on the business activities.",
     "The MLRO writes to the FSRA at least one month before trading ends.", False),
])
def test_a_notice_period_is_a_floor_on_the_lead_time(rule: str, policy: str,
                                                      clashes: bool) -> None:
    r, p = facets.read(rule), facets.read(policy)
    assert conflicts.comparable(rule, r, p) == {"notice"}
    assert (conflicts.conflict("notice", r, p) is not None) is clashes


def test_a_notice_period_is_no_retention_period_and_a_window_no_notice() -> None:
    notice = facets.read("must notify the Regulator at least ten Business Days in advance")
    assert notice.minimum_days == () and notice.notice_days == (14.0,)
    window = facets.read("must complete the course within 30 days before the start date")
    assert window.notice_days == () and window.deadline_days == (30.0,)


# -- linked operations counted apart; money kept instead of returned ---------------------------
@pytest.mark.parametrize(("rule", "policy", "kind"), [
    ("A DNFBP must undertake CDD where it is involved in a Transaction in cash that amounts to "
     "USD15,000 or more, whether or not the Transaction is executed in a single operation or "
     "in several operations that are or appear to be linked;",
     "The AED 55,000 threshold is measured against each invoice separately, so banknotes paid "
     "on separate visits are not added together.", "aggregation"),
    ("Where it is unable to complete CDD it must, where appropriate: return any monies or "
     "assets received from the customer",
     "Deposits are not refundable where the order is cancelled because KYC is incomplete.",
     "refund"),
])
def test_what_the_policy_counts_apart_or_keeps(rule: str, policy: str,
                                              kind: conflicts.Kind) -> None:
    r, p = facets.read(rule), facets.read(policy)
    assert kind in conflicts.comparable(rule, r, p)
    assert conflicts.conflict(kind, r, p) is not None


@pytest.mark.parametrize("policy", [
    "Linked cash payments by one customer are added together against the threshold.",
    "Each payment is recorded separately in the ledger.",
])
def test_counting_linked_payments_together_splits_nothing(policy: str) -> None:
    assert facets.read(policy).splits is None


def test_money_withheld_on_a_report_is_no_return() -> None:
    """"not return any monies … unless instructed by the MLRO" forbids returning; it asks for
    no refund a policy could withhold."""
    assert facets.read("where it has determined that it is necessary to make such a report, "
                       "not return any monies or provide any investments").returns is None
    assert facets.read("The Firm keeps the records for six years.").keeps is None


def test_money_held_on_a_suspicion_is_not_kept_from_the_customer() -> None:
    """Holding funds once a report is made is what the rules ask; only money kept for its own
    sake ("not refundable") conflicts with a duty to return it."""
    rule = "it must, where appropriate: return any monies or assets received from the customer;"
    for policy in ("Where an STR has been made, the Firm retains the funds pending the FIU's "
                   "instructions.", "The Firm keeps the deposit while the MLRO considers "
                   "whether the activity is suspicious."):
        assert "refund" not in conflicts.comparable(rule, facets.read(rule), facets.read(policy))
    assert "refund" in conflicts.comparable(rule, facets.read(rule), facets.read(
        "Deposits paid on special-order items are not refundable where the order is cancelled."))


def test_a_threshold_counted_per_invoice_is_read_however_far_the_vectors_put_it() -> None:
    """MiniLM puts a DNFBP's linked-cash rule far from the clause that counts each invoice on
    its own; the two thresholds name their subject, so the clause is read anyway."""
    rule = _unit("is a dealer in precious metals and it is involved in a Transaction in cash "
                 "that amounts to USD15,000 or more, whether or not the Transaction is executed "
                 "in a single operation or in several operations that are or appear to be "
                 "linked;", clause="8.1.1.(2)(b)",
                 stem="A Relevant Person that is a DNFBP must undertake CDD where it:")
    policy = [_unit("We identify every customer who pays AED 55,000 or more in banknotes.",
                    clause="4.1.1", section="When KYC is required"),
              _unit("The AED 55,000 threshold is measured against each invoice separately, so "
                    "banknotes paid on separate visits are not added together.",
                    clause="4.1.2", section="When KYC is required", start=100)]
    drafts = _drafts_on(rule, policy, [0.3, 0.2])
    assert [(d.kind, d.policy_unit.clause if d.policy_unit else None) for d in drafts] == \
        [("conflict", "4.1.2")]


def test_a_clause_is_about_what_the_clause_before_it_is_about() -> None:
    """"Deposits … are not refundable" is far from the rule by its vectors, but it goes on
    from the clause before it, which is about the rule's subject: it is read."""
    rule = _unit("return any monies or assets received from the customer; and",
                 clause="8.7.1.(1)(e)", stem="Where a Relevant Person is unable to complete "
                 "the requisite CDD it must, where appropriate:")
    policy = [_unit("If we cannot complete KYC on a customer, we do not deal with the customer "
                    "and we end any existing relationship.", clause="4.9.1",
                    section="When KYC cannot be completed"),
              _unit("Deposits paid on special orders are not refundable where the order is "
                    "cancelled because the customer has not completed KYC.", clause="4.9.2",
                    section="When KYC cannot be completed", start=100),
              _unit("Deposits paid on special orders are not refundable once work has begun.",
                    clause="7.2.1", section="Terms of sale", start=200)]
    drafts = _drafts_on(rule, policy, [0.5, 0.3, 0.3])
    assert [(d.kind, d.policy_unit.clause if d.policy_unit else None) for d in drafts] == \
        [("conflict", "4.9.2")]


# -- a forbidden act done to something the policy rarely names ---------------------------------
def test_the_act_forbidden_is_the_verb_after_an_adverb() -> None:
    forbids = facets.read("A Relevant Person must not knowingly establish or maintain an "
                          "anonymous account").forbids
    assert {verb for verb, _, _ in forbids} == {"establish", "maintain"}
    assert {objects for _, objects, _ in forbids} == {frozenset({"anonymou", "account"})}
    assert {verb for verb, _, _ in facets.read("It must not apply the exemption").forbids} == \
        {"appl"}  # "apply", stemmed


def _logo(policy: list[Unit]) -> list[Draft]:
    rule = _unit("use or reproduce the logo of the Regulator without express written "
                 "permission from the Regulator.", clause="15.8.1(b)",
                 stem="A DNFBP must not:")
    far = np.array([[0.3, 0.95]] * len(policy), dtype=np.float32)
    return alignment.match([Candidate(rule, "Regulatory status", 0.8)],
                           np.array([[1.0, 0.0]], dtype=np.float32), policy, far,
                           title="AML", addressee="Relevant Person")


def test_a_forbidden_act_on_a_rarely_named_thing_is_read_however_far() -> None:
    """MiniLM puts "display the FSRA logo" 0.42 from "must not use … the logo of the
    Regulator"; the logo is named in one clause of the policy, which is about it."""
    policy = [_unit("Our website and invoices display the FSRA logo next to our registration "
                    "number.", clause="13.3.4", section="Regulatory status"),
              _unit("The MLRO reviews this Manual once a year.", clause="13.3.5",
                    section="Regulatory status", start=100)]
    assert [(d.kind, d.target_clause) for d in _logo(policy)] == [("conflict", "15.8.1(b)")]


def test_a_thing_the_policy_names_often_does_not_tie_a_far_clause() -> None:
    policy = [_unit(f"Brochure {n} uses the logo of our group.", clause=f"7.{n}",
                    section="Marketing", start=100 * n) for n in range(1, 4)]
    assert _logo(policy) == []


# -- the regulator by its initials -------------------------------------------------------------
def test_a_policy_that_sends_the_fsra_a_copy_restates_a_duty_to_the_regulator() -> None:
    """Between TOPIC and COVERED by its vectors, the rule is an omission unless the policy
    restates it in words; "the FSRA" is "the Regulator" of the rulebook."""
    rule = _unit("The Relevant Person must provide to the Regulator a copy of the report "
                 "provided under Rule 12.4.1.", clause="12.4.3")
    policy = [_unit("The Company Secretary sends the FSRA a copy of the report.",
                    clause="9.2", section="Reports")]
    drafts = _drafts_on(rule, policy, [0.5])
    assert drafts == []


# -- the other sentences of a clause read ------------------------------------------------------
def test_an_exception_in_the_next_sentence_of_a_clause_is_read() -> None:
    """The clause's first sentence complies ("sent immediately"); its second makes an
    exception ("within ten Business Days"), less close to the rule than RELATED but about its
    subject (TOPIC): it is read with the sentence before it."""
    rule = _unit("upon request by the Regulator, ensure that the records are immediately "
                 "available for inspection.", clause="4.5.5(c)",
                 stem="Where the records are kept outside the ADGM, a Relevant Person must:")
    policy = [_unit("Records are available for inspection by the Regulator on request.",
                    clause="12.1.2", section="Records"),
              _unit("The records kept outside the ADGM are listed in the records register.",
                    clause="12.1.3", section="Records", start=100),
              _unit("Electronic copies of records are sent immediately to the FSRA whenever "
                    "it asks for them.", clause="12.1.4", section="Records", start=200),
              _unit("When the FSRA wishes to inspect archived paper files, Compliance makes "
                    "them available to the FSRA within ten Business Days.", clause="12.1.4",
                    section="Records", start=300)]
    similarity = [0.6, 0.55, 0.53, 0.48]
    drafts = _drafts_on(rule, policy, similarity)
    assert [(d.kind, d.policy_unit.start if d.policy_unit else None) for d in drafts] == \
        [("conflict", 300)]


# -- access kept from the AML function ---------------------------------------------------------
@pytest.mark.parametrize(("policy", "limits"), [
    ("The key linking the code name to the customer's identity is held by the Head of Vault "
     "Operations alone, and the MLRO then sees the account's activity under its code name "
     "only.", True),
    ("The compliance analysts have no access to the private banking files.", True),
    ("STR files are accessible only to the MLRO and the Deputy MLRO.", False),
    ("The MLRO has full access to every customer file.", False),
    ("Files of clients of the family office are held under restricted access, and the MLRO "
     "may consult them with the agreement of the Head of the Family Office.", True),
    ("The MLRO may consult any client file at any time, without the agreement of anyone.",
     False),
])
def test_access_kept_from_the_aml_function(policy: str, limits: bool) -> None:
    rule = ("If a Relevant Person uses a numbered account, it must ensure that staff "
            "performing compliance and audit functions have full access to information about "
            "the account and the account holder.")
    r, p = facets.read(rule), facets.read(policy)
    assert ("access" in conflicts.comparable(rule, r, p)) is limits
    if limits:
        assert conflicts.conflict("access", r, p) is not None


def test_direct_access_to_the_governing_body_is_not_access_to_information() -> None:
    rule = "A Relevant Person must ensure that its MLRO has direct access to its Governing Body."
    policy = "The MLRO sees the Board's papers only after the Chair has approved them."
    r, p = facets.read(rule), facets.read(policy)
    assert "access" not in conflicts.comparable(rule, r, p)


# -- a duty moved from its holder ----------------------------------------------------------------
_GOVERNING_BODY = ("A Relevant Person's Governing Body is responsible for establishing, "
                   "maintaining and monitoring the Relevant Person's AML/TFS policies, "
                   "procedures, systems and controls.")
_MLRO_ITEM = ("A Relevant Person must ensure that its MLRO implements and has oversight of and "
              "is responsible for the following matters: responding promptly to any request "
              "for information made by competent U.A.E. authorities or the Regulator;")


_EVERY_MEMBER = ("Responsibility for a Relevant Person's compliance with the AML Rulebook lies "
                 "with every member of the Governing Body, and its Senior Management.")


@pytest.mark.parametrize(("rule", "policy", "moved"), [
    (_GOVERNING_BODY, "The Board has delegated to the Chief Operating Officer the "
     "establishment and monitoring of the firm's AML policies and controls.", True),
    (_MLRO_ITEM, "Requests from the FSRA are answered by the Head of Legal rather than the "
     "MLRO.", True),
    ("A Relevant Person's Governing Body must ensure the policies, procedures, systems and "
     "controls are effective.", "Responsibility for ensuring that these controls are effective "
     "lies with the MLRO rather than with the Board.", True),
    (_GOVERNING_BODY, "The Board has delegated the day-to-day monitoring of the controls to the "
     "Compliance Committee but remains responsible for them.", False),
    (_MLRO_ITEM, "The Board has delegated the approval of this Policy to the Chief Executive.",
     False),
    (_MLRO_ITEM, "Where the funds appear to belong to a third party rather than the customer, "
     "the MLRO says so in the report.", False),
    # An LLP's governing body is its Management Committee, and a delegation may be passive.
    (_EVERY_MEMBER, "Responsibility for the firm's compliance with the AML Rules is delegated "
     "by the Management Committee to the MLRO and rests with the MLRO alone.", True),
    (_EVERY_MEMBER, "Each member of the Management Committee is responsible for the firm's "
     "compliance with the AML Rules.", False),
    # The holder only supporting someone else in the role has given the role away.
    (_MLRO_ITEM, "The General Counsel is the firm's point of contact with the FSRA; the MLRO "
     "supports the General Counsel in that role.", True),
    (_MLRO_ITEM, "The Compliance team supports the MLRO in that role.", False),
])
def test_a_duty_moved_from_its_holder(rule: str, policy: str, moved: bool) -> None:
    r, p = facets.read(rule), facets.read(policy)
    assert ("delegation" in conflicts.comparable(rule, r, p)) is moved
    if moved:
        assert conflicts.conflict("delegation", r, p) is not None


def test_a_duty_given_a_holder_is_an_obligation() -> None:
    assert obligations.is_obligation(_unit(_GOVERNING_BODY, clause="1.3.1"))
    assert obligations.is_obligation(_unit(_EVERY_MEMBER, clause="1.3.3.(1)"))
    assert not obligations.is_obligation(_unit("The Governing Body of a Relevant Person "
                                                "should be responsive to its MLRO.", clause="1"))


# -- a decision no one else approves ------------------------------------------------------------
_INDEPENDENT_RULE = ("A Relevant Person must ensure that if the MLRO decides to make a SAR/STR, "
                     "his decision is made independently and is not subject to the consent or "
                     "approval of any other Person.")


@pytest.mark.parametrize(("policy", "clashes"), [
    ("The MLRO's decision to file is subject to the approval of the Chief Executive.", True),
    ("That decision is not subject to the consent or approval of any other person, including "
     "the Board.", False),
    ("The MLRO decides alone whether to file; no director, manager or committee is asked to "
     "consent to or approve the decision.", False),
    ("The decision whether to file is the MLRO's alone and needs no one else's consent or "
     "approval.", False),
    ("The decision is the MLRO's alone and needs no one's consent or approval.", False),
])
def test_a_policy_that_restates_the_independence_is_no_conflict(policy: str,
                                                                 clashes: bool) -> None:
    r, p = facets.read(_INDEPENDENT_RULE), facets.read(policy)
    assert ("independence" in conflicts.comparable(_INDEPENDENT_RULE, r, p)) is clashes


def test_a_notice_period_is_read_however_far_the_vectors_put_it() -> None:
    """A lead time before an event ("at least ten Business Days in advance of it ceasing") is
    rare in a policy, and names what it is for: the clause that states one is read for a rule
    that does, however far MiniLM puts the two (0.37 on a development policy)."""
    rule = _unit("A DNFBP must notify the Regulator in writing at least ten Business Days in "
                 "advance of it ceasing to carry on the business activities that establish it as "
                 "a DNFBP.", clause="15.6.2.(1)")
    policy = [_unit("Plover trades in or from the ADGM only while its registration is in force.",
                    clause="13.3.1", section="Registration"),
              _unit("If the Board decides to stop dealing in precious metals, the MLRO writes to "
                    "the FSRA no later than five Business Days before trading ends.",
                    clause="13.3.2", section="Registration", start=100)]
    drafts = _drafts_on(rule, policy, [0.5, 0.3])
    assert [(d.kind, d.policy_unit.clause if d.policy_unit else None) for d in drafts] == \
        [("conflict", "13.3.2")]


# -- an account for someone whose identity is kept from the firm ------------------------------
_NOMINEE = ("A Relevant Person must not knowingly establish or maintain a nominee account which "
            "is held in the name of one Person but which is controlled by or held for the "
            "benefit of another Person whose true identity has not been disclosed to the "
            "Relevant Person.")


@pytest.mark.parametrize(("policy", "accepts"), [
    ("Curlew may register the nominee as the investor without being told the identity of the "
     "underlying investor, provided the nominee confirms it has completed CDD.", True),
    ("Where a lawyer asks to buy in its own name for a principal who prefers to stay unnamed, we "
     "may accept the instruction.", True),
    ("We never act for an undisclosed principal.", False),
    ("We do not register a nominee without being told the identity of the investor.", False),
    ("A nominee is registered only once we know who the underlying investor is.", False),
])
def test_an_account_for_someone_kept_from_the_firm(policy: str, accepts: bool) -> None:
    r, p = facets.read(_NOMINEE), facets.read(policy)
    assert ("undisclosed" in conflicts.comparable(_NOMINEE, r, p)) is accepts
    if accepts:
        assert conflicts.conflict("undisclosed", r, p) is not None


# -- a policy that narrows its own scope ---------------------------------------------------------
_REACH = ("Subject to (2), the AML Rulebook applies to: every Relevant Person in respect of all "
          "its activities carried out in or from the ADGM; and")


@pytest.mark.parametrize(("policy", "narrows"), [
    ("Activities that staff carry out outside the ADGM, such as overseas roadshows, fall outside "
     "the scope of this Policy.", True),
    ("This Policy does not apply to the firm's proprietary trading desk.", True),
    ("This Policy applies to every activity of the Firm, in or from the ADGM.", False),
    ("The Firm does not offer correspondent banking services.", False),
])
def test_a_policy_that_narrows_its_own_scope(policy: str, narrows: bool) -> None:
    r, p = facets.read(_REACH), facets.read(policy)
    assert ("scope" in conflicts.comparable(_REACH, r, p)) is narrows


def test_the_rules_reach_over_all_activities_is_checked() -> None:
    assert obligations.is_obligation(_unit("every Relevant Person in respect of all its "
                                           "activities carried out in or from the ADGM; and",
                                           clause="1.2.1.(1)(a)",
                                           stem="Subject to (2), the AML Rulebook applies to:"))


# -- what a forbidden act is done to -----------------------------------------------------------
_FORBIDDEN = ("A Relevant Person must not establish a business relationship with a prospective "
              "customer that is a Legal Person whose shares are in bearer form.")


@pytest.mark.parametrize(("policy", "does"), [
    ("Where the client insists, the desk establishes the business relationship with the "
     "bearer-share company and records the reason.", True),
    ("Before the relationship begins, Compliance establishes and verifies each partner's "
     "identity with sufficient evidence.", False),
])
def test_the_object_of_a_forbidden_act_follows_its_verb(policy: str, does: bool) -> None:
    r, p = facets.read(_FORBIDDEN), facets.read(policy)
    assert ("prohibition" in conflicts.comparable(_FORBIDDEN, r, p)) is does


# -- a lead-in's conflict said again by its item ------------------------------------------------
def _conflict_on(clause: str, policy: Unit, kind: str) -> Draft:
    rule = _unit("a duty", clause=clause)
    return Draft(Candidate(rule, "Theme", 0.8), rule, clause, "conflict",
                           "High", policy, 0.6, 0.7, "consequence", "suggestion",
                           key=("conflict", clause, kind))


def test_a_lead_ins_conflict_gives_way_to_its_items_on_the_same_statement() -> None:
    said = _unit("Questions from the FSRA are answered by the Managing Director rather than the "
                 "MLRO, once the monthly meeting has approved the reply.", clause="13.2.4")
    other = _unit("The Board has delegated the Manual to the Managing Director.", clause="2.1.2",
                  start=200)
    lead = _conflict_on("12.3.1", said, "delegation")
    item = _conflict_on("12.3.1(f)", said, "cycle")
    elsewhere = _conflict_on("1.3.1", other, "delegation")
    assert alignment._distinct([lead, item, elsewhere]) == [item, elsewhere]


# -- a fact a lead-in states of its items ----------------------------------------------------
_RECORDS = ("4.5.3 A Relevant Person must document, and provide to the Regulator immediately, "
            "any of the following:\n(a) the risk assessment of its business as required by Rule "
            "6.1.1;\n(b) how the assessment in (a) was used for the purposes of complying with "
            "Rule 6.1.2;\n(c) the risk assessment of the customer undertaken under Rule "
            "7.1.1(1)(a); and\n(d) the determination made under Rule 7.1.1(1)(b).\n")


@pytest.mark.parametrize(("policy", "item"), [
    # the statement that gets the deadline wrong names the record; the other does not count
    ("The Business Risk Assessment and the record of how it was used are documented by the "
     "MLRO, and copies of the current Business Risk Assessment will be provided to the FSRA "
     "within ten Business Days of a request.", "4.5.3(a)"),
    # "Business Days" is the deadline's, not the business the item names
    ("Customer risk assessments for individual customers are compiled from the onboarding "
     "system's audit log and provided to the FSRA within five Business Days of a request.",
     "4.5.3(c)"),
    # nothing points to one item: the lead-in stays the finding
    ("Records are provided to the FSRA within ten Business Days of a request.", "4.5.3"),
])
def test_a_deadline_in_a_lead_in_is_cited_on_the_item_the_policy_names(policy: str,
                                                                       item: str) -> None:
    from regintel.chat.offline.segments import segment

    units = segment(DOC, {1: _RECORDS})
    lead = next(u for u in units if u.clause == "4.5.3")
    drafts = alignment.match([Candidate(lead, "Records", 0.8)],
                             np.array([[1.0, 0.0]], dtype=np.float32),
                             [_unit(policy, clause="14.2.1")],
                             np.array([[0.7, 0.71]], dtype=np.float32), title="AML",
                             addressee="Relevant Person", context=units)
    assert [(d.kind, d.target_clause) for d in drafts] == [("conflict", item)]


def test_every_kind_of_fact_is_one_a_clause_can_mention() -> None:
    # _Stated.on picks the part of a clause that mentions a kind; a kind mentions() does not
    # know is never found in a part, and the whole clause answers for all of them.
    import inspect
    import re
    import typing

    handled = set(re.findall(r'case "(\w+)"', inspect.getsource(conflicts.mentions)))
    kinds = set(typing.get_args(conflicts.Kind))
    assert kinds - handled - set(conflicts.ACTS_AGAINST) == set()


def test_a_clause_that_samples_mentions_the_sample() -> None:
    assert conflicts.mentions("sample", facets.read("We review a sample of the STRs."))
    assert not conflicts.mentions("sample", facets.read("We review the STRs."))
