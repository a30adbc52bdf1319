"""What a question's form asks for, and whether a sentence states it."""

import pytest

from regintel.chat.offline.answer_kind import asked, asked_act, grants, states


@pytest.mark.parametrize(("question", "kind"), [
    ("How often must client accounts be reconciled?", "frequency"),
    ("How long do we have to keep the records?", "period"),
    ("Who has to sign off the assessment?", "person"),
    ("What is the maximum fine?", "amount"),
    ("What's the penalty for a late return?", "amount"),
    ("What must we do with client money?", None),
])
def test_the_kind_a_question_asks_for(question: str, kind: str | None) -> None:
    assert asked(question) == kind


def test_a_sentence_states_a_kind_by_its_drafting_form() -> None:
    assert states("frequency", "The report must be delivered at least annually.")
    assert not states("frequency", "Records must be kept for six years.")
    assert states("period", "Records must be kept for six years.")


@pytest.mark.parametrize(("question", "act"), [
    ("Can we outsource the MLRO role to an external consultant?", "outso"),
    ("May a firm rely on a third party's checks?", "rely"),
    ("Are we allowed to delay the report?", "delay"),
    ("Can the processor bring in its own sub-processor?", "bring"),
    ("Can one person be both officers?", None),  # "be": no act to look for
    ("What must we do before onboarding?", None),
])
def test_the_act_a_question_asks_leave_for(question: str, act: str | None) -> None:
    assert asked_act(question) == act


def test_leave_is_given_or_withheld_where_the_act_follows_its_modal() -> None:
    assert grants("outso", "A Relevant Person may outsource the role of MLRO to an individual.")
    assert grants("rely", "A Relevant Person may not rely on a third party unless …")
    assert grants("outso", "It must not outsource the function.")
    assert not grants("rely", "The Firm will rely on a third party only if it obtains …")
    assert not grants("outso", "Where it outsources, it remains responsible.")
