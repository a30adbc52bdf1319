"""What a pasted text sets aside (obligations/set_aside.py), and the facts a text states
against a rule's (obligations/facts.py): the words of English, not of one regulation."""

from __future__ import annotations

import pytest

from regintel.obligations.compare import put_off
from regintel.obligations.facts import facts_of
from regintel.obligations.set_aside import acts_set_aside


@pytest.mark.parametrize(("sentence", "cue", "act"), [
    ("Let's skip the checks this once and not tell the compliance team.", "skip",
     "the checks this once"),
    ("He is a big client, so let's not escalate this to the officer for now;", "let's not",
     "escalate this to the officer for now"),
    ("There is no need to ask anyone for permission.", "no need to",
     "ask anyone for permission"),
    ("We will not sign standard contractual clauses with them.", "will not",
     "sign standard contractual clauses with them"),
    ("Please don't hold any payments for screening.", "don't",
     "hold any payments for screening"),
])
def test_an_act_set_aside_is_read_up_to_the_end_of_its_clause(sentence: str, cue: str,
                                                              act: str) -> None:
    found = acts_set_aside(sentence)
    assert (found[0].cue, found[0].act) == (cue, act)
    assert sentence[found[0].start:found[0].end].endswith(act)


def test_both_acts_of_one_sentence_are_read() -> None:
    acts = acts_set_aside("Let's skip the checks this once and not tell the compliance team.")
    assert [a.act for a in acts] == ["the checks this once", "tell the compliance team"]


@pytest.mark.parametrize("sentence", [
    "We verify every customer's identity before we open the account.",
    "Records are kept for at least six years.",
    "We will not.",  # a cue with nothing after it sets nothing aside
])
def test_a_text_that_sets_nothing_aside(sentence: str) -> None:
    assert acts_set_aside(sentence) == []


def test_every_second_year_is_a_frequency_and_what_it_replaces_is_not_stated() -> None:
    facts = facts_of("Training will from now on be held every second year instead of every "
                     "year.")
    frequencies = [f for f in facts if f.kind == "frequency"]
    assert [(f.text, f.value) for f in frequencies] == [("every second year", 730.0)]


def test_a_disposal_after_a_time_is_how_long_a_thing_is_kept() -> None:
    facts = facts_of("IT will purge the files of every customer whose account closed more "
                     "than three years ago.")
    assert [(f.kind, f.value) for f in facts if f.kind in ("period", "deadline")] == [
        ("period", 1095.0)]


@pytest.mark.parametrize(("policy", "later"), [
    ("Staff report suspicious transactions to their line manager at the end of each month.",
     "each month"),
    ("Reports are filed within 30 days.", "within 30 days"),
    ("We report it immediately and in any event within one business day.", None),
    ("We report it as soon as practicable.", None),
])
def test_a_duty_to_act_at_once_put_off(policy: str, later: str | None) -> None:
    rule = facts_of("A Firm must report any suspicious transaction to its officer without "
                    "delay.", "mandatory")
    found = put_off(rule, facts_of(policy))
    assert (found.policy if found else None) == later


def test_a_rule_that_bounds_its_delay_decides_itself() -> None:
    text = "The controller shall reply without undue delay and in any event within one month."
    assert put_off(facts_of(text, "mandatory"), facts_of("We reply within 20 days."),
                   text) is None
