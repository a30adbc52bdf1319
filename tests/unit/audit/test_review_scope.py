"""A review that a policy says leaves out what the rules have it cover."""

from __future__ import annotations

import pytest

from regintel.chat.offline import conflicts, facets, review_scope

_SANCTIONS = ("A Relevant Person must review its customers, their businesses, and Transactions, "
              "against Sanctions Lists when complying with Rule 8.6.1(d).")
_RATING = ("When undertaking ongoing CDD a Relevant Person must: periodically review each "
           "customer to ensure that the risk rating assigned to a customer remains appropriate")


@pytest.mark.parametrize(("rule", "policy", "leaves_out"), [
    (_SANCTIONS, "The periodic review does not include sanctions screening, because clients "
     "are screened on acceptance.", True),
    (_RATING, "The periodic review refreshes the CDD file but does not re-rate the client.",
     True),
    (_SANCTIONS, "The periodic review does not include a credit check.", False),
    (_SANCTIONS, "The periodic review includes sanctions screening of the client.", False),
    # "must review" is the act, not a review that leaves something out.
    (_SANCTIONS, "A nominee director must review board papers and refuse to sign any document "
     "he or she does not understand.", False),
])
def test_a_review_that_leaves_out_what_the_rule_has_it_cover(rule: str, policy: str,
                                                             leaves_out: bool) -> None:
    r, p = facets.read(rule), facets.read(policy)
    assert ("review" in conflicts.comparable(rule, r, p)) is leaves_out


def test_what_the_review_leaves_out() -> None:
    found = review_scope.leaves_out("The periodic review does not include sanctions screening.")
    assert found is not None and found[0] == {"sanction", "screen"}
