"""Facts that tie a rule to a policy clause worded apart from it, so that the audit sets the
two side by side however far apart the vectors put them."""

from __future__ import annotations

from collections.abc import Callable

from regintel.chat.offline.conflicts import ACTS_AGAINST, Kind, forbids_when_unable, going_ahead
from regintel.chat.offline.facets import Facets


def _tie(kind: Kind) -> tuple[Callable[[Facets], bool], Callable[[Facets], bool]]:
    """A TIES entry from the two phrases of ``kind``."""
    said, says = ACTS_AGAINST[kind]
    return (lambda r: bool(said(r)), lambda c: bool(says(c)))



# Facts that tie a rule to a clause worded apart from it by design, as (what the rule says,
# what the clause says): a duty before the start against one put after it ("prior to
# establishing a business relationship" / "within 30 days after dealing begins"); a
# responsibility kept against one passed on ("remains responsible" / "rests with the
# Provider"); something a duty excludes against a clause accepting something ("other than a
# post office box" / "accepted as the residential address"); a report that must reach the
# MLRO against someone deciding whether it does ("promptly notifies the … MLRO" / "who
# decides whether the matter is passed to the Financial Crime Officer"); an act forbidden
# where something cannot be done against going ahead when it cannot ("prevents … from
# identifying" / "cannot be identified, the Matter may proceed"); operations counted
# together against counted apart ("several operations that … appear to be linked" / "are not
# added together"); money given back against money kept ("return any monies" / "not
# refundable"); full access for the AML function against access kept from it ("have full
# access to information about the account" / "the MLRO … see … under its code name only");
# a duty's holder against the duty moved away from it ("its MLRO … is responsible for the
# following matters: … responding promptly to any request for information" / "are answered
# by the Managing Director rather than the MLRO"); an account for someone whose identity is
# kept from the firm, forbidden against accepted ("whose true identity has not been
# disclosed" / "without being told the identity of the underlying investor").
TIES: tuple[tuple[Callable[[Facets], bool], Callable[[Facets], bool]], ...] = (
    (lambda r: bool(r.before_start), lambda c: bool(c.after_start)),
    _tie("responsibility"),
    (lambda r: bool(r.excludes), lambda c: bool(c.accepts)),
    _tie("filter"),
    (forbids_when_unable, lambda c: going_ahead(c) is not None),
    _tie("aggregation"),
    _tie("refund"),
    _tie("access"),
    _tie("delegation"),
    _tie("owner"),
    _tie("unregulated"),
    _tie("status"),
    _tie("outside"),
    _tie("undisclosed"),
    _tie("easing"),
    _tie("pending"),
    _tie("deferral"),
    _tie("definition"),
)
# Ties whose two sides name their subject themselves, read on a clause however far the
# vectors put it from the rule: a money threshold over linked operations against a money
# threshold counted one by one ("Transaction in cash that amounts to USD15,000 or more …
# in several operations that … appear to be linked" / "The AED 55,000 threshold is measured
# against each invoice separately"; MiniLM puts the two 0.44 apart); a lead time before an
# event against another ("at least ten Business Days in advance of it ceasing to carry on
# the business activities" / "no later than five Business Days before trading ends": 0.37
# apart), rare in a policy and said of the event it names; the rules' reach over all of a
# firm's activities against a policy that puts some outside its own scope.
EVIDENT: tuple[tuple[Callable[[Facets], bool], Callable[[Facets], bool]], ...] = (
    (lambda r: bool(r.links and r.amounts), lambda c: bool(c.splits and c.amounts)),
    (lambda r: bool(r.notice_days), lambda c: bool(c.notice_days)),
    _tie("scope"),
    # A sample of the very things the rule has all of (by head noun or acronym): a review's
    # list item ("(b) a review of a sample of the STRs") sits in a list the vectors put far
    # from the one item it gets wrong (0.37).
    (lambda r: bool(r.every), lambda c: bool(c.sampled)),
)
