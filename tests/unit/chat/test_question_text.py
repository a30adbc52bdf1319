"""The question as the search reads it: a follow-up with the thread's earlier questions, and
practitioners' abbreviations spelled out beside them."""

from __future__ import annotations

from regintel.chat.question_text import (
    earlier_questions,
    in_context,
    is_follow_up,
    without_mentions,
)
from regintel.retrieval.abbreviations import expand, expansions

PEPS = "What enhanced due diligence is needed for politically exposed persons?"


def test_a_follow_up_is_read_with_the_questions_it_follows() -> None:
    assert is_follow_up("and who has to approve the relationship?")
    assert is_follow_up("What about for PEPs?")
    assert is_follow_up("and can we charge a fee for it?")
    assert not is_follow_up(PEPS)
    assert not is_follow_up("How long must customer due diligence records be kept?")
    chained = in_context("and who has to approve it?", [PEPS, "what about for trusts?"])
    assert chained == f"{PEPS} what about for trusts? and who has to approve it?"
    assert in_context(PEPS, ["How long are records kept?"]) == PEPS  # not a follow-up
    assert in_context("and for how long?", []) == "and for how long?"  # nothing before it


def test_pointing_at_documents_is_not_leaning_on_the_subject() -> None:
    # "these rules" are the documents (the resolver reads them); the subject is training.
    assert not is_follow_up("what do these rules say about training?")
    assert not is_follow_up("What does this regulation say about outsourcing?")
    # "that rule" is a provision of the answer before: its subject.
    assert is_follow_up("does that rule apply to trusts?")


def test_earlier_questions_are_the_users_own_messages() -> None:
    memory = {"recent": [{"role": "user", "content": PEPS},
                         {"role": "assistant", "content": "Under Rule 8.4.1 …"}]}
    assert earlier_questions(memory) == [PEPS]
    assert earlier_questions(None) == []
    assert in_context("and who approves it?", earlier_questions(memory)).startswith(PEPS)


def test_abbreviations_are_spelled_out_beside_the_users_words() -> None:
    assert expand("Under GDPR, when do we need a DPIA?") == (
        "Under GDPR, when do we need a DPIA? (DPIA: data protection impact assessment)")
    # Plural forms, and nothing the text already spells out or a lower-case word.
    assert expansions("Do PEPs need EDD?") == [
        ("PEPs", "politically exposed persons"), ("EDD", "enhanced due diligence")]
    assert expansions("customer due diligence (CDD) records") == []
    assert expansions("it is an aid to understanding") == []
    assert expand("no abbreviation here") == "no abbreviation here"


def test_an_abbreviation_the_passages_use_is_not_spelled_out() -> None:
    passages = ["A Relevant Person must keep CDD records for six years."]
    assert expand("How long are CDD records kept?", unless_in=passages) == \
        "How long are CDD records kept?"
    assert expand("When is a DPIA needed?", unless_in=passages).endswith(
        "(DPIA: data protection impact assessment)")


def test_mentions_are_tags_not_words_to_search() -> None:
    assert without_mentions("@[AML Rules (AML)] What must  a firm do?") == "What must a firm do?"
    assert without_mentions("Compare @[Policy] with @[Rules] on training") == \
        "Compare with on training"
    assert without_mentions("@[AML Rules]") == "AML Rules"  # nothing else to search for
    assert without_mentions("Write to ops@bank.com today") == "Write to ops@bank.com today"
