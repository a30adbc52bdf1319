"""Something the rules include that a policy puts outside its scope."""

from __future__ import annotations

import pytest

from regintel.chat.offline import conflicts, facets

_RISKS = ("A Relevant Person must: take appropriate steps to identify and assess money "
          "laundering risks to which its business is exposed. Relevant Persons must take into "
          "account that money laundering risks include the risk of terrorist financing, "
          "proliferation financing, the financing of unlawful organisations and sanctions "
          "non-compliance.")


def test_what_the_rule_includes_put_outside_the_scope_contradicts_it() -> None:
    policy = ("The BRA covers money laundering and terrorist financing risk. Proliferation "
              "financing and sanctions risk are outside its scope and are managed through the "
              "sanctions screening arrangements in Part 8.")
    r, p = facets.read(_RISKS), facets.read(policy)
    found = conflicts.conflict("outside", r, p) if "outside" in conflicts.comparable(
        _RISKS, r, p) else None
    assert found is not None
    assert found.policy == "Proliferation financing and sanctions risk are outside its scope"


@pytest.mark.parametrize("policy", [
    # something else outside the scope
    "Fraud and bribery risk are outside its scope and are covered by the Fraud Policy.",
    # everything the rule includes kept in
    "The BRA covers terrorist financing, proliferation financing and sanctions risk.",
])
def test_nothing_the_rule_includes_left_out_is_no_conflict(policy: str) -> None:
    r, p = facets.read(_RISKS), facets.read(policy)
    assert "outside" not in conflicts.comparable(_RISKS, r, p)
