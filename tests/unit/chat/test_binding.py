"""What binds: a duty, a prohibition, a licence on a condition - not a rule on how a text is
to be read - and which questions ask what the rules require or allow."""

from __future__ import annotations

import pytest

from regintel.chat.offline.binding import binds
from regintel.chat.offline.compose import asks_requirements
from regintel.chat.offline.ranking import figures


@pytest.mark.parametrize("text", [
    "A firm must keep the records for at least six years.",
    "The controller shall notify the authority without undue delay.",
    "A person may not act as an officer unless approved.",
    "A controller may transfer the data to a third country only if appropriate safeguards "
    "are in place.",
    "References to the former committee shall be construed as references to the Board, and "
    "the Board shall publish its opinions.",  # the second duty binds
])
def test_duties_prohibitions_and_conditional_licences_bind(text: str) -> None:
    assert binds(text)


@pytest.mark.parametrize("text", [
    "References to the former committee shall be construed as references to the Board.",
    "In these Rules, a reference to a client shall be read as including a prospective client.",
    "The term 'transfer' shall mean any disclosure of the data to a recipient.",
    "A firm should consider whether a report is needed.",
    "A firm may appoint an agent.",
])
def test_how_a_text_is_to_be_read_guidance_and_plain_licences_do_not(text: str) -> None:
    assert not binds(text)


@pytest.mark.parametrize("question", [
    "Are we allowed to open an account for a bank with no physical presence?",
    "Can we rely on another firm's checks?",
    "What happens if we cannot verify a customer?",
    "What must a firm do before onboarding?",
])
def test_questions_of_what_the_rules_require_or_allow(question: str) -> None:
    assert asks_requirements(question)


def test_a_question_of_meaning_asks_no_requirement() -> None:
    assert not asks_requirements("What is meant by a business relationship?")


def test_a_statements_figures_are_the_fact_readers() -> None:
    # Periods in words beyond ten, comparators kept, frequencies and amounts read too.
    assert figures("Complaints must be resolved at the latest fifteen days after receipt.") == [
        "at the latest fifteen days"]
    assert figures("Keep them for at least six years, review them annually and fine up to "
                   "EUR 20 000 000 or 4 % of turnover.") == [
        "annually", "at least six years", "up to eur 20 000 000", "4 %"]
