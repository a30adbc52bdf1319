"""The comparable facts of an obligation or a policy clause: its measures (measures.py:
periods, urgency, frequencies, thresholds, due dates, modality, independence) and the acts it
requires, forbids or allows (acts.py and the readers beside it). conflicts.py sets a rule's
facts against a policy's."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from regintel.chat.offline import (
    acts,
    bounds,
    dealings,
    definitions,
    out_of_scope,
    owners,
    pending,
    review_scope,
    risk_tiers,
    roles,
    rounds,
    samples,
    supervision,
)
from regintel.chat.offline.measures import Measures, measure


@dataclass(frozen=True)
class Facets(Measures):
    """What a text states: its measures, and the acts it requires, forbids or allows."""

    # Acts (see acts.py): before / after a relationship starts, forbidden (act, objects,
    # phrase), allowed with a bare "may" (act, phrase), a required measure made replaceable.
    before_start: str | None = None
    after_start: str | None = None
    forbids: tuple[tuple[str, frozenset[str], str], ...] = ()
    allows: tuple[tuple[str, str], ...] = ()
    substitutes: tuple[frozenset[str], str] | None = None
    # A responsibility the firm keeps ("remains responsible for compliance"), or one the text
    # puts on someone outside it ("responsibility … rests with the Provider").
    retains: str | None = None
    shifts: str | None = None
    # A risk factor the text has weighed ("must take into account all relevant risk
    # factors"), or sets aside ("is not treated as a risk factor").
    weighs: str | None = None
    dismisses: str | None = None
    # What a duty excludes ("other than a post office box": its stems, the phrase), and what
    # a text accepts ("is recorded and accepted as").
    excludes: tuple[frozenset[str], str] | None = None
    accepts: str | None = None
    # A report the text sends to the MLRO, or has someone else decide on first.
    to_mlro: str | None = None
    filters: str | None = None
    text: str = ""
    # Linked operations counted as one ("in several operations that are or appear to be
    # linked"), or counted one by one ("are not added together").
    links: str | None = None
    splits: str | None = None
    # Money given back ("return any monies or assets received"), or kept ("not refundable").
    returns: str | None = None
    keeps: str | None = None
    # Full access for the AML function ("have full access to information"), or access kept
    # from it ("the MLRO … see that account's activity under its code name only").
    full_access: str | None = None
    limits_access: str | None = None
    # Who a duty belongs to ("its MLRO … is responsible for"), or a duty moved away from its
    # holder ("answered by the Managing Director rather than the MLRO").
    holds: str | None = None
    moved_from: str | None = None
    owned_by: tuple[frozenset[str], str] | None = None  # a duty a function of the firm owns
    every: tuple[tuple[str, str], ...] = ()  # what the text asks for all of
    sampled: tuple[str, str] | None = None  # what the text takes a sample of
    regulated: str | None = None  # a condition that someone is regulated
    unregulated: str | None = None  # that condition, held not to matter
    keeps_status: str | None = None  # a DNFBP forbidden to misrepresent its status
    claims_authorisation: str | None = None  # "authorised and regulated by the FSRA"
    includes: tuple[frozenset[str], str] | None = None  # what the text says is included
    outside: tuple[frozenset[str], str] | None = None  # what it puts outside its scope
    # An account for someone whose identity is kept from the firm: forbidden ("whose true
    # identity has not been disclosed"), or accepted ("without being told the identity").
    undisclosed: str | None = None
    accepts_unnamed: str | None = None
    # What the rules reach ("in respect of all its activities"), and what a policy leaves
    # out of its own ("fall outside the scope of this Policy").
    all_activities: str | None = None
    carves_out: str | None = None
    # An easing allowed for low risk only ("any customer assigned a low-risk rating"), and
    # one a policy grants beyond it ("a client rated low or medium risk"): see risk_tiers.py.
    eases_low: str | None = None
    eases_beyond: str | None = None
    # A measure a policy holds back for the higher tiers ("only where the client has been
    # rated high risk"): the tiers, and the words.
    held_to: tuple[frozenset[str], str] | None = None
    # CDD before the work ("must fulfil … CDD … before … prepares for"), and work allowed
    # while CDD is outstanding ("may start preparing … while CDD is still in progress").
    cdd_first: str | None = None
    while_pending: str | None = None
    # Something done when an event happens ("whenever … becomes aware of any change"), and
    # something a policy leaves to its next round ("at the customer's next scheduled
    # periodic review").
    on_event: str | None = None
    deferred: str | None = None
    # Persons a policy holds to a share ("each beneficiary who is entitled to 25% or more"):
    # their stem, and the words.
    bounded: tuple[str, str] | None = None
    # A term the text defines ("'business partner' includes:"), and something a policy says
    # a term does not name ("are not business partners for the purposes of").
    defines: str | None = None
    not_counted: str | None = None
    # What a policy's review leaves out ("does not include sanctions screening"): its stems,
    # and the words.
    review_leaves_out: tuple[frozenset[str], str] | None = None


# The same clause is read for every target and again to find the statements of fact
# (matching.states_fact), and a policy is audited more than once: read once.
@lru_cache(maxsize=8192)
def read(text: str) -> Facets:
    return Facets(**vars(measure(text)), text=text,
                  # acts.py: timing, what is forbidden, allowed or made replaceable
                  before_start=acts.before_start(text), after_start=acts.after_start(text),
                  forbids=acts.forbidden(text), allows=acts.allowed(text),
                  substitutes=acts.substitute(text),
                  # roles.py: who answers for a duty
                  retains=roles.retains(text), shifts=roles.shifts(text),
                  to_mlro=roles.reports_to_mlro(text), filters=roles.filters(text),
                  full_access=roles.full_access(text), limits_access=roles.limits_access(text),
                  holds=roles.holds(text), moved_from=roles.moved_from(text),
                  # dealings.py: customers, their money, the policy's reach
                  weighs=dealings.weighs_risk(text), dismisses=dealings.dismisses_risk(text),
                  excludes=dealings.excluded(text), accepts=dealings.accepts(text),
                  links=dealings.links(text), splits=dealings.splits(text),
                  returns=dealings.returns(text), keeps=dealings.keeps(text),
                  undisclosed=dealings.undisclosed(text),
                  accepts_unnamed=dealings.accepts_unnamed(text),
                  all_activities=dealings.all_activities(text),
                  carves_out=dealings.carves_out(text),
                  # the readers of one kind each
                  owned_by=owners.owned_by(text), every=tuple(samples.every(text)),
                  sampled=samples.sampled(text),
                  regulated=supervision.must_be_regulated(text),
                  unregulated=supervision.regulation_waived(text),
                  keeps_status=supervision.keeps_status(text),
                  claims_authorisation=supervision.claims_authorisation(text),
                  includes=out_of_scope.included(text), outside=out_of_scope.left_outside(text),
                  eases_low=risk_tiers.for_low_risk(text),
                  eases_beyond=risk_tiers.beyond_low_risk(text),
                  held_to=risk_tiers.held_to(text), cdd_first=pending.cdd_first(text),
                  while_pending=pending.while_pending(text), on_event=rounds.on_event(text),
                  deferred=rounds.deferred(text), bounded=bounds.bounded(text),
                  defines=definitions.defined(text), not_counted=definitions.not_counted(text),
                  review_leaves_out=review_scope.leaves_out(text))


# Where one sentence states facts about two acts ("obtains the records within 30 days …, and
# the introducer must supply copies without delay"), each is read on its own part.
_SPLIT = re.compile(r";\s+|,\s+(?:and|but|while|whereas)\s+|\s+[—–]\s+")


def parts(text: str) -> list[str]:
    """The parts of a sentence that may each state their own facts (at least the text)."""
    found = [p.strip() for p in _SPLIT.split(text) if p.strip()]
    return found or [text]

