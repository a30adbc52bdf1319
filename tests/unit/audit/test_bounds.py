"""A share threshold a policy sets where the rule sets none."""

from __future__ import annotations

import pytest

from regintel.chat.offline import bounds, conflicts, facets

_EACH = "The Relevant Person must identify: each beneficiary of the trust;"


@pytest.mark.parametrize(("policy", "bounded"), [
    ("For a trust we identify the settlor, each beneficiary who is entitled to 25% or more of "
     "the trust property, and the protector.", True),
    ("For a trust we identify the settlor, each beneficiary and the protector.", False),
])
def test_a_share_the_rule_does_not_set(policy: str, bounded: bool) -> None:
    r, p = facets.read(_EACH), facets.read(policy)
    assert ("bound" in conflicts.comparable(_EACH, r, p)) is bounded
    if bounded:
        found = conflicts.conflict("bound", r, p)
        assert found is not None and found.rule.startswith("each beneficiary")


def test_a_share_the_rule_sets_itself_is_no_conflict() -> None:
    rule = ("The Relevant Person must identify each Natural Person who owns or controls, "
            "directly or indirectly, 25% or more of the shares or voting rights.")
    policy = "We identify each person who holds 25% or more of the shares."
    r, p = facets.read(rule), facets.read(policy)
    assert "bound" not in conflicts.comparable(rule, r, p)


def test_other_persons_are_not_held_to_the_share() -> None:
    found = bounds.bounded("We identify any shareholder who owns 10% or more of the shares.")
    assert found is not None
    assert bounds.named_without_share(_EACH, found[0]) is None
