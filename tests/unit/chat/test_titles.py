"""Conversation titles: clean text from the first question, distinct among the user's chats."""

from __future__ import annotations

from regintel.chat.titles import MAX_TITLE_CHARS, clean_title, distinct_title
from regintel.domain.documents import titled


def test_a_title_shows_mentions_as_names_on_one_line() -> None:
    assert clean_title("record-keeping requirements in @[ADGM AML Rules]\n  please") == (
        "record-keeping requirements in ADGM AML Rules please")


def test_a_long_title_is_cut_at_a_word() -> None:
    title = clean_title("What must a Relevant Person do " + "about suspicious transactions " * 5)
    assert len(title) <= MAX_TITLE_CHARS and title.endswith("…")
    assert title[:-1].split()[-1] in {"about", "suspicious", "transactions"}


def test_an_empty_question_has_a_fallback_title() -> None:
    assert clean_title("  ") == "New conversation"


def test_a_repeated_title_is_numbered() -> None:
    assert distinct_title("Q", []) == "Q"
    assert distinct_title("Q", ["Q"]) == "Q (2)"
    assert distinct_title("Q", ["Q", "Q (2)", "Other"]) == "Q (3)"


def test_a_version_the_title_already_says_is_not_repeated() -> None:
    assert titled("GDPR (Regulation (EU) 2016/679)", "2016/679") == (
        "GDPR (Regulation (EU) 2016/679)")
    assert titled("AML Rules", "2025") == "AML Rules (2025)"
    assert titled("AML Rules", "") == "AML Rules"


def test_a_long_mentioned_name_reads_as_its_abbreviation() -> None:
    """Issue 38: the demo's chats about the AML rulebook all read "ADGM Anti-Money Laundering
    and Sanctio…" in the chat list; its own abbreviation leaves room for the question."""
    aml = "@[ADGM Anti-Money Laundering and Sanctions Rules and Guidance (AML)]"
    assert clean_title(f"{aml} What must a relevant person do?") == (
        "AML What must a relevant person do?")
    assert clean_title(f"{aml} @[ADGM General Rulebook (GEN)] differences?") == (
        "AML ADGM General Rulebook (GEN) differences?")  # short enough to stay whole
    assert clean_title("@[GDPR (Regulation (EU) 2016/679)] consent") == (
        "GDPR (Regulation (EU) 2016/679) consent")
    policy = "@[Falcon Crest Capital Ltd — AML/CFT Policy for the whole group]"
    assert clean_title(f"{policy} audit").startswith("Falcon Crest Capital Ltd")
