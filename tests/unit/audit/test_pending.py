"""Work a policy lets go ahead while CDD is outstanding, against a rule that puts CDD first."""

from __future__ import annotations

import pytest

from regintel.chat.offline import conflicts, facets, pending

_DNFBP = ("A Relevant Person that is a DNFBP must fulfil the appropriate CDD and reporting "
          "obligations where applicable before the Relevant Person prepares for or carries out "
          "a Transaction or provision of a service in Rule 8.1.1(2)(a), (d), (e) or (f).")


@pytest.mark.parametrize(("policy", "going_ahead"), [
    ("To avoid delaying new work, an engagement team may start preparing for an accounting "
     "engagement, for example by scoping the work and drafting documents, while CDD is still "
     "in progress, provided that nothing is filed until CDD is complete.",
     "while CDD is still in progress"),
    ("The desk may book the first trade pending completion of verification.",
     "pending completion of verification"),
    ("Goods are never released, and buy-back money never paid, while verification is "
     "outstanding.", None),
    ("No work may start while CDD is pending.", None),
    ("The Procedures set out the limits that apply while verification is outstanding.", None),
])
def test_work_allowed_while_cdd_is_outstanding(policy: str, going_ahead: str | None) -> None:
    assert pending.while_pending(policy) == going_ahead


def test_a_rule_that_puts_cdd_first_is_contradicted() -> None:
    policy = ("An engagement team may start preparing for a formation engagement while CDD is "
              "still in progress.")
    r, p = facets.read(_DNFBP), facets.read(policy)
    assert r.cdd_first is not None and "pending" in conflicts.comparable(_DNFBP, r, p)
    found = conflicts.conflict("pending", r, p)
    assert found is not None and found.policy == "while CDD is still in progress"


def test_a_rule_without_cdd_first_is_not() -> None:
    rule = "A Relevant Person must keep the records for at least six years."
    policy = "Records may be archived while CDD is still in progress."
    r, p = facets.read(rule), facets.read(policy)
    assert "pending" not in conflicts.comparable(rule, r, p)
