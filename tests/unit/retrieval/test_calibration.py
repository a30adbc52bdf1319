"""The answer-confidence model shipped in the package: it loads, its probability rises with
the strength of the evidence an answer cites, an answer made of definitions for a question
that asks no meaning is never High, and the tiers follow the thresholds fitted with it."""

from __future__ import annotations

from uuid import uuid4

import pytest

from regintel.domain.chat import Citation
from regintel.domain.documents import ChunkHit, DocType
from regintel.retrieval.calibration import (
    FEATURES,
    answer_features,
    is_definition,
    is_glossary,
    load_model,
)
from regintel.retrieval.confidence import Tier

DOCUMENT = uuid4()
RULE = ("A Relevant Person must keep the records of each customer for at least six years from "
        "the date the business relationship ends.")
GLOSSARY = ("Customer\tMeans a person with whom a Relevant Person has a business relationship.\n"
            "Records\tMeans the documents a Relevant Person keeps under these Rules.\n"
            "Regulator\tMeans the Financial Services Regulatory Authority.")
QUESTION = "How long must a Relevant Person keep customer records?"


def _hit(text: str, score: float, ordinal: int = 0) -> ChunkHit:
    return ChunkHit(ordinal=ordinal, text=text, page_start=1, page_end=1, char_start=0,
                    char_end=len(text), chunk_id=uuid4(), document_id=DOCUMENT,
                    document_title="Conduct Rules", document_version="1",
                    doc_type=DocType.REGULATION, score=score)


def _cite(n: int, hit: ChunkHit, quote: str) -> Citation:
    return Citation(n=n, document_id=DOCUMENT, chunk_id=hit.chunk_id, title="Conduct Rules",
                    quote=quote)


def test_the_shipped_model_reads_every_feature_and_was_fitted_on_fold_0() -> None:
    model = load_model()
    assert set(model.features) <= set(FEATURES)
    assert len(model.weights) == len(model.means) == len(model.scales) == len(model.features)
    assert "fold 0" in model.trained_on
    assert 0.0 < model.low <= model.high < 1.0


def test_probability_rises_with_the_strength_of_the_cited_evidence() -> None:
    model = load_model()
    probabilities = []
    for score in (0.02, 0.1, 0.25, 0.45, 0.7, 0.95):
        rule = _hit(RULE, score)
        others = [_hit(f"Unrelated passage number {i} about something else.", score / 4, i + 1)
                  for i in range(3)]
        features = answer_features(QUESTION, [rule, *others], [_cite(1, rule, RULE)])
        probabilities.append(model.probability(features))
    assert all(0.0 < p < 1.0 for p in probabilities)
    assert probabilities == sorted(probabilities), probabilities
    assert probabilities[-1] - probabilities[0] > 0.3, probabilities
    assert model.tier(probabilities[0]) is Tier.LOW
    assert model.tier(probabilities[-1]) is Tier.HIGH


def test_an_answer_without_citations_is_less_sure_than_one_citing_the_rule() -> None:
    model = load_model()
    rule = _hit(RULE, 0.6)
    cited = model.assess(QUESTION, [rule], [_cite(1, rule, RULE)])
    uncited = model.assess(QUESTION, [rule], [])
    assert uncited.score < cited.score


def test_definitions_for_a_question_that_asks_no_meaning_are_never_high() -> None:
    model = load_model()
    rule, glossary = _hit(RULE, 0.95), _hit(GLOSSARY, 0.95)
    others = [_hit(f"Unrelated passage number {i}.", 0.1, i + 1) for i in range(3)]
    by_rule = model.assess(QUESTION, [rule, *others], [_cite(1, rule, RULE)])
    lines = GLOSSARY.splitlines()
    cited = [_cite(1, glossary, lines[0]), _cite(2, glossary, lines[1])]
    by_definitions = model.assess(QUESTION, [glossary, *others], cited)
    assert answer_features(QUESTION, [glossary, *others], cited)["definitions_unasked"] == 1.0
    assert by_rule.tier is Tier.HIGH
    assert by_definitions.tier is not Tier.HIGH, by_definitions
    # Asked what a word means, the glossary is the answer: the tier is the probability's.
    asked = "What does Customer mean?"
    meaning = model.assess(asked, [glossary, *others], cited)
    assert meaning.tier is model.tier(meaning.score)


@pytest.mark.parametrize(("text", "defines"), [
    ("'Client' means a person to whom a firm provides a service.", True),
    ("Regulator\tMeans the Financial Services Regulatory Authority.", True),
    ("In these Rules, “Group” has the meaning given in section 2.", True),
    ("A reference to a Rule is a reference to a Rule of this rulebook.", True),
    ("Terms used in this Part are to be read with the glossary.", True),
    (RULE, False),
    ("The Regulator may, by notice in writing, require a firm to provide information.", False),
])
def test_definitions_are_told_apart_in_any_wording(text: str, defines: bool) -> None:
    assert is_definition(text) is defines


def test_a_glossary_table_is_a_glossary() -> None:
    assert is_glossary(GLOSSARY)
    assert not is_glossary(RULE)
