"""A duty on an event that a policy puts off to its next round."""

from __future__ import annotations

import pytest

from regintel.chat.offline import conflicts, facets, rounds

_REASSESS = ("The customer risk assessment in (1) must be completed: whenever it is otherwise "
             "appropriate for existing customers, including where the Relevant Person becomes "
             "aware of any change to the risk factors associated with the customer.")


@pytest.mark.parametrize(("policy", "deferred"), [
    ("A trigger event does not of itself change the customer's risk rating; the rating is "
     "reassessed at the customer's next scheduled periodic review.",
     "at the customer's next scheduled periodic review"),
    ("The relationship may continue until the next annual review of that respondent.",
     "until the next annual review"),
    ("A trigger event is acted on at once; it does not wait for the next periodic review.",
     None),
    ("Each customer is reviewed every year.", None),
])
def test_something_left_to_the_next_round(policy: str, deferred: str | None) -> None:
    assert rounds.deferred(policy) == deferred


def test_a_duty_on_an_event_is_contradicted_by_waiting_for_the_round() -> None:
    policy = "The rating is reassessed at the customer's next scheduled periodic review."
    r, p = facets.read(_REASSESS), facets.read(policy)
    assert r.on_event is not None and r.on_event.startswith("whenever it is otherwise")
    assert "deferral" in conflicts.comparable(_REASSESS, r, p)


def test_an_urgent_duty_is_no_event() -> None:
    # "immediately" is a deadline: a report owed at once is read against periods and cycles.
    assert rounds.on_event("A Relevant Person must provide the report to the Regulator "
                           "immediately.") is None
