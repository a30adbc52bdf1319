"""Offline intent: a request names the action ("summarise …", "audit our policy", "check this
email against …") and is certain; a topic word that nearly every compliance question contains
("comply", "compliance", "breach", "difference", "key obligations") only suggests one."""

from __future__ import annotations

import pytest

from regintel.chat.offline.intent import classify
from regintel.domain.chat import Action

REQUESTS = [
    ("Audit our AML policy against the ADGM rules", Action.AUDIT),
    ("Please audit the attached policy", Action.AUDIT),
    ("Check this email against the AML rules: let's skip the checks", Action.AUDIT),
    ("Does this email comply with the GDPR?", Action.AUDIT),
    ("Is our onboarding procedure compliant with the rulebook?", Action.AUDIT),
    ("Review our retention policy for gaps", Action.AUDIT),
    ("Compare the AML Rules and the Conduct of Business Rulebook on record keeping",
     Action.COMPARE),
    ("Summarise the GDPR's rules on personal data breach notification", Action.SUMMARIZE),
    ("Give me an overview of the AI Act", Action.SUMMARIZE),
]
# Practitioner questions that are inquiries, whatever words they contain.
QUESTIONS = [
    ("How does a firm comply with the suspicious activity reporting requirements?",
     Action.AUDIT),
    ("What must an Authorised Person do to remain in compliance with its capital "
     "requirements?", Action.AUDIT),
    ("What are the consequences of a breach of the client money rules?", Action.AUDIT),
    ("What is the difference between a Professional Client and a Retail Client?",
     Action.COMPARE),
    ("What are the key obligations when onboarding a politically exposed person?",
     Action.SUMMARIZE),
    ("Who is responsible for compliance oversight of outsourced functions?", None),
    ("Under GDPR, when do we need a DPIA?", None),
    ("What does the internal audit function have to report to the board?", Action.AUDIT),
]


@pytest.mark.parametrize(("message", "action"), REQUESTS)
def test_a_request_names_the_action_for_certain(message: str, action: Action) -> None:
    guess = classify(message)
    assert (guess.action, guess.confident) == (action, True), guess.reason


@pytest.mark.parametrize(("message", "suggested"), QUESTIONS)
def test_topic_words_only_suggest_an_action(message: str, suggested: Action | None) -> None:
    guess = classify(message)
    assert not guess.confident, guess.reason
    assert guess.action is (suggested or Action.INQUIRE)
