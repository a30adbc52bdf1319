"""One list of refusing words for every reader that looks for a grant."""

from __future__ import annotations

import pytest

from regintel.chat.offline import dealings, pending, rounds
from regintel.chat.offline.refusals import refused


@pytest.mark.parametrize(("text", "only", "expected"), [
    ("Simplified measures may not be applied to medium-risk clients.", False, True),
    ("We decline to act for anyone who will not name the investor.", False, True),
    ("Simplified measures are available only to low-risk clients.", False, False),
    ("Simplified measures are available only to low-risk clients.", True, True),
    ("Simplified measures may be applied to low or medium risk clients.", True, False),
])
def test_a_refusal_is_read_before_what_it_refuses(text: str, only: bool, expected: bool) -> None:
    assert refused(text, only=only) is expected


def test_the_window_bounds_the_refusal() -> None:
    text = "No cash is accepted. Work may start while CDD is still in progress."
    assert refused(text, 0, len("No cash is accepted."))
    assert not refused(text, len("No cash is accepted."))


@pytest.mark.parametrize("text", [
    "Nothing may be prepared for the client while CDD is still in progress.",  # pending
    "We never wait until the next annual review of the client.",  # rounds
    "We decline to act for an undisclosed principal.",  # acts
])
def test_every_reader_knows_every_refusal(text: str) -> None:
    assert pending.while_pending(text) is None
    assert rounds.deferred(text) is None
    assert dealings.accepts_unnamed(text) is None
