"""Text pasted into the message to be audited is the audit's source, not the question."""

from __future__ import annotations

import pytest

from regintel.chat.pasted import separate, split
from regintel.domain.chat import ChatRequest

EMAIL = ("Dear Sam, thanks for the call. We would like to move quickly with the new fund "
         "and will wire the first tranche on Monday; the documents you asked for will follow "
         "once the account is live.")


@pytest.mark.parametrize("message", [
    f"Check this email against the AML rules: {EMAIL}",
    f"Please review the following for compliance\n\n{EMAIL}",
    f'Does this message comply with the rules? "{EMAIL}"',
])
def test_an_instruction_with_its_text_is_split(message: str) -> None:
    found = split(message)
    assert found is not None
    instruction, pasted = found
    assert pasted == EMAIL and EMAIL not in instruction


def test_a_one_line_email_is_text_to_audit() -> None:
    short = "Hi team, the client is in a hurry - let's skip the CDD this once."
    assert split(f"Check this email against the AML rules: {short}") == (
        "Check this email against the AML rules", short)


@pytest.mark.parametrize("message", [
    "Check this email against the AML rules: it is short.",  # too short to audit
    f"What does the regulation say about this: {EMAIL}",  # asks no check
    f"Check the CDD rules: {EMAIL}",  # points at no pasted text
    f"Review: {EMAIL}",
    "Review the following requirement for me: what does Rule 8.1 require where the customer "
    "is a trust whose trustee lives in another jurisdiction with weak controls?",  # a question
])
def test_other_messages_are_left_whole(message: str) -> None:
    assert split(message) is None


def test_a_request_that_has_its_text_or_answers_a_question_is_left_alone() -> None:
    message = f"Check this email: {EMAIL}"
    moved = separate(ChatRequest(message=message))
    assert moved.message == "Check this email" and moved.source_text == EMAIL
    given = ChatRequest(message=message, source_text="Another text.")
    assert separate(given) is given
    answering = ChatRequest(message=message, answer="search_library")
    assert separate(answering) is answering


def test_an_instruction_after_its_text_is_split() -> None:
    email = ("Hi team, the client is in a hurry and the deal is big. Let's skip the checks "
             "this once and not tell the officer; we can sort the paperwork out later.")
    assert split(f"{email} Check this email against the rules.") == (
        "Check this email against the rules.", email)
