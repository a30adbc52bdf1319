"""What a comparison is about: the words left once comparison vocabulary is removed."""

from __future__ import annotations

from regintel.chat.nodes.actions import comparison_topic


def test_a_pointing_word_is_no_topic() -> None:
    # "this" once made a focused comparison on the topic "this" (a search that found nothing).
    assert comparison_topic("Compare this regulation", []) is None
    assert comparison_topic("Compare that policy with this regulation", []) is None


def test_the_topic_is_what_is_left() -> None:
    assert comparison_topic("What are the key differences in capital requirements?",
                            []) == "capital requirements"
