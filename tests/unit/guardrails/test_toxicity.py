"""The toxicity lexicon: abuse, slurs and threats in; compliance vocabulary out."""

from __future__ import annotations

import pytest

from regintel.guardrails.toxicity import ToxicityChecker

CHECK = ToxicityChecker()


@pytest.mark.parametrize(("text", "category"), [
    ("You are a useless idiot, answer me properly.", "abuse"),
    ("This fucking rulebook makes no sense", "abuse"),
    ("what a load of bullsh1t", "abuse"),
    ("Answer me, you f*cking moron", "abuse"),
    ("you are an i d i o t", "abuse"),
    ("Du bist ein Arschloch", "abuse"),
    ("Only a retard would write this rule", "slur"),
    ("I will kill you if the filing is late", "threat"),
    ("I know where you live.", "threat"),
    ("kill yourself", "threat"),
    ("We'll burn down your office", "threat"),
])
def test_toxic_messages(text: str, category: str) -> None:
    result = CHECK.check(text)
    assert result.toxic and result.category == category and result.terms


@pytest.mark.parametrize("text", [
    "What are the reporting duties for terrorist financing under the AML Rulebook?",
    "Does an algorithmic trading firm need a kill switch?",
    "How should a firm report suspected fraud to the FSRA?",
    "What counts as abuse of market or market abuse under MKT?",
    "Which controls detect child abuse material in payment flows?",
    "Is a sexual harassment policy required for Authorised Persons?",
    "What are the red flags of drug trafficking and money laundering?",
    "Can a firm shoot for a faster settlement cycle?",
    "The Regulator may assess whether the Applicant is a fit and proper person.",
    "What is the penalty for a scunthorpe-style false match in sanctions screening?",
    "Is an insurance claim for a bomb threat at the office covered?",
])
def test_compliance_vocabulary_is_not_toxic(text: str) -> None:
    assert CHECK.check(text).toxic is False


def test_words_match_whole_not_inside_others() -> None:
    assert not CHECK.check("The Cocktail Bar at Hancock's, Scunthorpe, Essex").toxic
    assert not CHECK.check("Assess the classic prickly pear asset class").toxic
    assert CHECK.check("what a prick").toxic
