"""A sample where the rules ask for all."""

from __future__ import annotations

import pytest

from regintel.chat.offline import conflicts, facets, samples

_REVIEW = ("The review process required under Rule 4.1.1(4) must cover at least the following: "
           "an analysis of all Suspicious Activity/Transaction Reports to highlight any area "
           "where procedures or training may need to be enhanced; and")


def test_a_sample_of_what_the_rule_has_all_of_contradicts_it() -> None:
    policy = ("a review of a sample of the STRs filed during the year, selected by Internal "
              "Audit, to identify any area in which procedures or training should be "
              "strengthened")
    r, p = facets.read(_REVIEW), facets.read(policy)
    assert "sample" in conflicts.comparable(_REVIEW, r, p)
    found = conflicts.conflict("sample", r, p)
    assert found is not None and found.policy == "a sample of the STRs"


@pytest.mark.parametrize(("asked", "taken", "same"), [
    ("Suspicious Activity/Transaction Reports", "STRs", True),  # an acronym of its words
    ("Suspicious Activity/Transaction Reports", "SARs", True),  # the other reading of "/"
    ("Suspicious Activity/Transaction Reports", "CTRs", False),  # not its initials
    ("transactions", "large transactions", True),  # the same head noun
    ("customer", "customer files", False),  # "each customer" is not their files
])
def test_the_sample_is_of_the_same_things(asked: str, taken: str, same: bool) -> None:
    assert samples.same_things(asked, taken) is same


@pytest.mark.parametrize("policy", [
    "The review tests a sample of customer files for the quality of risk ratings.",
    "The review analyses every STR filed during the year.",
])
def test_no_sample_of_those_things_is_no_conflict(policy: str) -> None:
    r, p = facets.read(_REVIEW), facets.read(policy)
    assert "sample" not in conflicts.comparable(_REVIEW, r, p)
