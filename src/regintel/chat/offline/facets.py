"""The comparable facts of an obligation or a policy clause: periods ("at least six years",
"within 30 days"), urgency ("without delay", "immediately"), frequencies ("semi-annually",
"every two years"), money and percentage thresholds, modality ("must" vs "may") and
independence ("not subject to the approval of"); and the conflicts between two of them."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from regintel.chat.offline import (
    acts,
    bounds,
    definitions,
    out_of_scope,
    owners,
    pending,
    review_scope,
    risk_tiers,
    rounds,
    samples,
    supervision,
)
from regintel.chat.offline.lexical import terms

_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
            "fourteen": 14, "fifteen": 15, "sixteen": 16, "eighteen": 18, "twenty": 20,
            "twenty-one": 21, "twenty-four": 24, "twenty-eight": 28, "thirty": 30,
            "thirty-six": 36, "forty": 40, "forty-five": 45, "forty-eight": 48, "sixty": 60,
            "seventy-two": 72, "ninety": 90, "a": 1, "an": 1}
_NUM = r"(?P<n>\d+(?:\.\d+)?|" + "|".join(sorted(_NUMBERS, key=len, reverse=True)) + r")"
_UNIT_DAYS = {"hour": 1 / 24, "business day": 1.4, "working day": 1.4, "calendar day": 1.0,
              "day": 1.0, "week": 7.0, "month": 30.0, "year": 365.0}
_PERIOD = re.compile(
    r"(?P<q>at least|not less than|a minimum of|minimum of|within|no later than|not later "
    r"than|up to|not exceeding|no more than|every|each)?\s*(?:a period of\s*)?" + _NUM +
    r"\s*(?:\(\d+\)\s*)?(?P<u>hours?|business days?|working days?|calendar days?|days?|"
    r"weeks?|months?|years?)\b(?P<after>\s+(?:after|following)\b)?"
    r"(?P<before>(?:'s?)?\s+(?:notice\s+)?(?:in advance|before|prior to)\b)?", re.I)
_URGENT = re.compile(r"\b(immediately|without (?:undue )?delay|promptly|forthwith|as soon as "
                     r"(?:possible|practicable|reasonably practicable)|on the same day)\b",
                     re.I)
_FREQUENCY = [  # (pattern, months between occurrences)
    (r"semi-annual(?:ly)?|half-year(?:ly)?|twice (?:a|each|per) year|every six months",
     6.0),
    (r"quarterly|every three months", 3.0),
    (r"monthly|every month|each month", 1.0),
    (r"biennial(?:ly)?|every two years|every other year|every second year", 24.0),
    (r"every three years|triennial(?:ly)?", 36.0),
    (r"(?<!semi-)annual(?:ly)?|yearly|once a year|each year|every year|every twelve months",
     12.0),
]
_FREQUENCIES = [(re.compile(rf"\b(?:{p})\b", re.I), m) for p, m in _FREQUENCY]
# A frequency left open ("reviews its policies periodically"): no interval at all, so any
# interval an obligation sets is missed. Read only where no interval is stated.
_OPEN_FREQUENCY = re.compile(r"\b(?:periodically|from time to time|on a (?:regular|periodic|"
                             r"case[- ]by[- ]case) basis|as (?:and when|needed|necessary)|"
                             r"when(?:ever)? (?:needed|necessary)|ad hoc)\b", re.I)
OPEN = float("inf")  # the interval, in months, of a frequency left open
# A round that also runs on the event: "at least once a year and whenever the law or our
# business changes materially", "at least yearly and on every new transaction". It does not
# wait for the round, so it is no cycle set against a duty to act promptly.
_ON_EVENT = re.compile(r"\bwhenever\b|\b(?:each|every) time\b|\bon (?:every|each|any) new\b|"
                       r"\bas soon as\b", re.I)
_MONEY = re.compile(r"(?P<cur>USD|US\$|\$|AED|EUR|€|GBP|£)\s?(?P<v>\d{1,3}(?:,\d{3})+|\d+)"
                    r"(?:\.\d+)?\s*(?P<mult>million|m\b|thousand|k\b)?", re.I)
# The currency after the figure: "15,000 US dollars", "55,000 AED", "1 million dirhams".
_MONEY_AFTER = re.compile(r"\b(?P<v>\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s*(?P<mult>million|"
                          r"thousand)?\s?(?P<cur>USD|US dollars?|dollars?|AED|dirhams?|EUR|"
                          r"euros?|GBP|pounds sterling)\b", re.I)
_PERCENT = re.compile(r"(?P<v>\d+(?:\.\d+)?)\s?(?:%|per ?cent)", re.I)
_MANDATORY = re.compile(r"\b(must|shall|is required to|are required to|required to|is obliged "
                        r"to|has to|have to|needs to|is to|are to)\b", re.I)
_PERMISSIVE = re.compile(r"\b(may(?! not| only)|can|need not|is not required to|optional(?:ly)?)\b",
                         re.I)
# Discretion that empties a duty: "may, where the Relationship Manager considers it
# necessary, verify …", "at its discretion". A bare "may" is left out (policies say "records
# may be kept in electronic form" without weakening anything), and so are "is not required
# to" and "need not", which far more often restate an exemption of the rules themselves. A
# rule that itself says "where practicable" is not contradicted by a policy that does.
_EFFORT = (r"\b(?:endeavou?rs?|tries|aims|seeks|strives) to\b|\b(?:where|if|whenever|as far "
           r"as) (?:possible|practicable|feasible),?")
DISCRETIONARY = re.compile(
    r"\bmay,? (?:where|if|when|at|in|as) [^.;]{0,80}?(?:consider|think|deem|discretion|"
    r"necessary|appropriate|sees? fit)\w*(?: (?:it|them) (?:necessary|appropriate|fit))?,?|"
    r"\bat (?:its|their|the \w+(?: \w+)?'s) (?:sole )?discretion\b|\boptional(?:ly)?\b|"
    # A duty softened to an effort: "endeavours to complete CDD", "where possible, verifies".
    + _EFFORT, re.I)
_EFFORT_ONLY = re.compile(_EFFORT, re.I)


def is_effort(phrase: str) -> bool:
    """Whether a discretionary phrase softens a duty to an effort ("endeavours to") rather
    than leaving it to someone's judgement ("may, where … considers it necessary")."""
    return _EFFORT_ONLY.fullmatch(phrase.strip()) is not None


URGENT_DAYS = 1.5  # "within one business day" still reads as prompt
# A decision no one else approves, however it is put: "is not subject to the consent or
# approval of any other person", "no director, manager or committee is asked to consent to
# or approve the decision", "needs no one else's consent or approval".
_INDEPENDENT = re.compile(r"\bindependent(?:ly)?\b.*\bnot (?:be )?subject to\b|\bnot (?:be )?"
                          r"subject to the (?:consent|approval)|\bno\b[^.;]{0,60}?\b(?:is|are)"
                          r"\s+asked\s+to\s+(?:consent|approve)\b|\bneeds?\s+no(?:\s*(?:one|body)"
                          r"(?:\s+else)?'s|\s+other\s+person's)?\s+(?:consent|approval)\b",
                          re.I)
_APPROVAL = re.compile(r"\b(approval|consent|approve[sd]?|sign-off)\b", re.I)
_RETENTION = re.compile(r"\b(kept|keep|retain\w*|maintain\w*|record\w*|stored?)\b", re.I)
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december")
_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_MONTH = r"(?:" + "|".join(m.capitalize() for m in _MONTHS) + r")"
# An annual due date: "by the end of April each year", "by 30 June", "no later than March 31".
# Months are matched capitalised only ("may" is a verb).
_DUE_DATE = re.compile(
    r"\b(?:by|no later than|not later than|before)\s+(?:the\s+(?:end|last day)\s+of\s+)?"
    r"(?:(?P<d1>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?)?(?P<m>" + _MONTH + r")"
    r"(?:\s+(?P<d2>\d{1,2})(?:st|nd|rd|th)?\b)?")
# Two named months a year ("In January and July the Officer reports …"): a half-yearly cycle.
_MONTH_PAIR = re.compile(r"\b(?:[Ii]n|[Ee]ach|[Ee]very)\s+(?P<a>" + _MONTH + r")\s+and\s+(?P<b>" +
                         _MONTH + r")\b")
_AT_LEAST = re.compile(r"\b(or more|or above|or greater|equal to or (?:more|greater)|exceed\w*|"
                       r"above|over)\b", re.I)

Kind = Literal["period", "deadline", "frequency", "amount", "percent", "modality",
               "independence", "date", "order", "prohibition", "waiver", "cycle",
               "responsibility", "risk", "exclusion", "filter", "notice", "aggregation",
               "refund", "access", "delegation", "undisclosed", "scope", "easing", "tier",
               "pending", "deferral", "bound", "definition", "review", "share", "owner", "sample",
               "unregulated", "status", "outside"]


@dataclass(frozen=True)
class Facets:
    minimum_days: tuple[float, ...]  # "at least six years": floors
    deadline_days: tuple[float, ...]  # "within 30 days": ceilings
    urgent: str | None  # "without delay" …
    frequency_months: tuple[float, ...]
    amounts: tuple[tuple[str, float], ...]  # (currency, value)
    percents: tuple[float, ...]
    mandatory: bool
    permissive: str | None  # the permissive phrase, if any
    discretionary: str | None  # a phrase that leaves the duty to discretion, if any
    independent: bool  # "… independently and is not subject to the consent or approval"
    approval: bool  # mentions an approval or consent
    phrases: dict[str, str]  # kind → the phrase as written, for messages
    due_dates: tuple[int, ...] = ()  # annual due dates, as days of the year ("by 30 June")
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
    # How long before an event something must be done: "at least ten Business Days in
    # advance of it ceasing", "no later than five Business Days before trading ends" (both
    # floors on the lead time, however the quantifier reads).
    notice_days: tuple[float, ...] = ()
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
    # The share an exemption's condition requires ("wholly-owned by the Federal Government":
    # 100), as written; None where the text is no exemption's condition.
    exempt_share: tuple[float, str] | None = None


# The same clause is read for every target and again to find the statements of fact
# (matching.states_fact), and a policy is audited more than once: read once.
@lru_cache(maxsize=8192)
def read(text: str) -> Facets:
    phrases: dict[str, str] = {}
    minimum: list[float] = []
    deadline: list[float] = []
    frequency: list[float] = []
    notice: list[float] = []
    for m in _PERIOD.finditer(text):
        days = _days(m)
        q = (m["q"] or "").lower()
        said = m[0][:m.start("after") - m.start()] if m["after"] else m[0]
        # "within 30 days before" bounds the lead time from above: not a notice period.
        if m["before"] and q not in ("every", "each", "within", "up to", "not exceeding",
                                     "no more than"):
            notice.append(days)
            phrases.setdefault("notice", m[0].strip())
        elif q in ("every", "each"):
            frequency.append(days / 30.0)
            phrases.setdefault("frequency", said.strip())
        elif q in ("within", "no later than", "not later than", "up to", "not exceeding",
                   "no more than"):
            deadline.append(days)
            phrases.setdefault("deadline", said.strip())
        elif q or _RETENTION.search(text):
            minimum.append(days)
            phrases.setdefault("period", said.strip())
        elif m["after"]:  # "submits it 45 days after the year end"
            deadline.append(days)
            phrases.setdefault("deadline", said.strip())
    for pattern, months in _FREQUENCIES:
        if fm := pattern.search(text):
            frequency.append(months)
            phrases.setdefault("frequency", fm[0])
    for m in _MONTH_PAIR.finditer(text):  # "in January and July": every six months
        apart = abs(_MONTHS.index(m["a"].lower()) - _MONTHS.index(m["b"].lower()))
        if apart == 6:
            frequency.append(6.0)
            phrases.setdefault("frequency", m[0])
    if not frequency and (om := _OPEN_FREQUENCY.search(text)):
        frequency.append(OPEN)
        phrases["frequency"] = om[0]
    urgent = _URGENT.search(text)
    amounts = []
    for m in [*_MONEY.finditer(text), *_MONEY_AFTER.finditer(text)]:
        amounts.append(_figure(m))
        phrases.setdefault("amount", m[0].strip())
    percents = [float(m["v"]) for m in _PERCENT.finditer(text)]
    if percents:
        phrases["percent"] = _PERCENT.search(text)[0]  # type: ignore[index]
    permissive = _PERMISSIVE.search(text)
    discretionary = DISCRETIONARY.search(text)
    approval = _APPROVAL.search(text)
    if approval:
        phrases["approval"] = approval[0]
    mandatory = _MANDATORY.search(text)
    if mandatory:
        phrases["mandatory"] = mandatory[0]
    if urgent:
        phrases["urgent"] = urgent[0]
    due = [_day_of_year(m) for m in _DUE_DATE.finditer(text)]
    if due:
        phrases["date"] = _DUE_DATE.search(text)[0]  # type: ignore[index]
    return Facets(tuple(minimum), tuple(deadline), urgent[0] if urgent else None,
                  tuple(frequency), tuple(amounts), tuple(percents), bool(mandatory),
                  permissive[0] if permissive else None,
                  discretionary[0].rstrip(", ") if discretionary else None,
                  bool(_INDEPENDENT.search(text)), bool(approval), phrases, tuple(due),
                  acts.before_start(text), acts.after_start(text), acts.forbidden(text),
                  acts.allowed(text), acts.substitute(text), acts.retains(text),
                  acts.shifts(text), acts.weighs_risk(text), acts.dismisses_risk(text),
                  acts.excluded(text), acts.accepts(text), acts.reports_to_mlro(text),
                  acts.filters(text), text, tuple(notice), links=acts.links(text),
                  splits=acts.splits(text), returns=acts.returns(text), keeps=acts.keeps(text),
                  full_access=acts.full_access(text), limits_access=acts.limits_access(text),
                  holds=acts.holds(text), moved_from=acts.moved_from(text),
                  owned_by=owners.owned_by(text), every=tuple(samples.every(text)),
                  sampled=samples.sampled(text),
                  regulated=supervision.must_be_regulated(text),
                  unregulated=supervision.regulation_waived(text),
                  keeps_status=supervision.keeps_status(text),
                  claims_authorisation=supervision.claims_authorisation(text),
                  includes=out_of_scope.included(text), outside=out_of_scope.left_outside(text),
                  undisclosed=acts.undisclosed(text),
                  accepts_unnamed=acts.accepts_unnamed(text),
                  all_activities=acts.all_activities(text), carves_out=acts.carves_out(text),
                  eases_low=risk_tiers.for_low_risk(text),
                  eases_beyond=risk_tiers.beyond_low_risk(text),
                  held_to=risk_tiers.held_to(text), cdd_first=pending.cdd_first(text),
                  while_pending=pending.while_pending(text), on_event=rounds.on_event(text),
                  deferred=rounds.deferred(text), bounded=bounds.bounded(text),
                  defines=definitions.defined(text), not_counted=definitions.not_counted(text),
                  review_leaves_out=review_scope.leaves_out(text),
                  exempt_share=_exempt_share(text))


# An exemption whose conditions follow: "is not required to comply with Rule 8.3.1(1)(b) if
# the customer is:", "need not meet the condition in (3)(c) if:".
EXEMPTION = re.compile(r"\b(?:need not|(?:does|do) not have to|(?:is|are) not required to|"
                       r"does not apply)\b(?:[^.;]|\.(?=\d))*\b(?:if|where|provided)\b", re.I)
_WHOLLY = re.compile(r"\bwholly[- ]owned\b", re.I)


def _exempt_share(text: str) -> tuple[float, str] | None:
    """The share an exemption's condition requires, and its words: "wholly-owned" is all of
    it; a stated percentage is that percentage."""
    if not EXEMPTION.search(text):
        return None
    if m := _WHOLLY.search(text):
        return 100.0, m[0]
    if m := _PERCENT.search(text):
        return float(m["v"]), m[0]
    return None


def _day_of_year(m: re.Match[str]) -> int:
    """The day of the year a due date falls on; a month without a day means its last day."""
    month = _MONTHS.index(m["m"].lower())
    day = int(m["d1"] or m["d2"] or _MONTH_DAYS[month])
    return sum(_MONTH_DAYS[:month]) + min(day, _MONTH_DAYS[month])


# Where one sentence states facts about two acts ("obtains the records within 30 days …, and
# the introducer must supply copies without delay"), each is read on its own part.
_SPLIT = re.compile(r";\s+|,\s+(?:and|but|while|whereas)\s+|\s+[—–]\s+")


def parts(text: str) -> list[str]:
    """The parts of a sentence that may each state their own facts (at least the text)."""
    found = [p.strip() for p in _SPLIT.split(text) if p.strip()]
    return found or [text]


def _days(m: re.Match[str]) -> float:
    raw = m["n"].lower()
    n = float(raw) if raw[0].isdigit() else float(_NUMBERS[raw])
    unit = m["u"].lower().rstrip("s")
    return n * _UNIT_DAYS[unit]


def _figure(m: re.Match[str]) -> tuple[str, float]:
    """A matched amount as (currency, value), "USD 1.5 million" as ("USD", 1,500,000); a
    matched percentage as ("", value)."""
    groups = m.groupdict()
    value = float(m["v"].replace(",", ""))
    mult = (groups.get("mult") or "").lower()
    value *= 1_000_000 if mult in ("million", "m") else 1000 if mult in ("thousand", "k") else 1
    return (_currency(groups["cur"]) if groups.get("cur") else "", value)


def _currency(symbol: str) -> str:
    s = " ".join(symbol.upper().split()).rstrip("S")
    return {"US$": "USD", "$": "USD", "€": "EUR", "£": "GBP", "US DOLLAR": "USD",
            "DOLLAR": "USD", "DIRHAM": "AED", "EURO": "EUR", "POUNDS STERLING": "GBP"
            }.get(s, s)


@dataclass(frozen=True)
class Conflict:
    kind: Kind
    rule: str  # what the obligation says, as written ("at least six years")
    policy: str  # what the policy says instead ("five years")


_Said = Callable[[Facets], str | None]
# The kinds read as an act of the rule's against the policy's opposite act, each phrase as
# written: a responsibility kept / passed on, a risk factor weighed / set aside, a report
# sent to the MLRO / decided on first, operations linked / counted apart, money returned /
# kept, full access / access limited, a duty's holder / the duty moved, an undisclosed
# beneficiary forbidden / accepted, all activities reached / some put out of scope.
ACTS_AGAINST: dict[Kind, tuple[_Said, _Said]] = {
    "responsibility": (lambda f: f.retains, lambda f: f.shifts),
    "risk": (lambda f: f.weighs, lambda f: f.dismisses),
    "filter": (lambda f: f.to_mlro, lambda f: f.filters),
    "aggregation": (lambda f: f.links, lambda f: f.splits),
    "refund": (lambda f: f.returns, lambda f: f.keeps),
    "access": (lambda f: f.full_access, lambda f: f.limits_access),
    "delegation": (lambda f: f.holds, lambda f: f.moved_from),
    "owner": (lambda f: f.holds, lambda f: f.owned_by[1] if f.owned_by else None),
    "unregulated": (lambda f: f.regulated, lambda f: f.unregulated),
    "status": (lambda f: f.keeps_status, lambda f: f.claims_authorisation),
    "outside": (lambda f: f.includes[1] if f.includes else None,
                lambda f: f.outside[1] if f.outside else None),
    "undisclosed": (lambda f: f.undisclosed, lambda f: f.accepts_unnamed),
    "scope": (lambda f: f.all_activities, lambda f: f.carves_out),
    "easing": (lambda f: f.eases_low, lambda f: f.eases_beyond),
    "pending": (lambda f: f.cdd_first, lambda f: f.while_pending),
    "deferral": (lambda f: f.on_event, lambda f: f.deferred),
    "definition": (lambda f: f.defines, lambda f: f.not_counted),
}


def _tie(kind: Kind) -> tuple[Callable[[Facets], bool], Callable[[Facets], bool]]:
    """A TIES entry from the two phrases of ``kind``."""
    said, says = ACTS_AGAINST[kind]
    return (lambda r: bool(said(r)), lambda c: bool(says(c)))


def comparable(rule_text: str, rule: Facets, policy: Facets) -> set[Kind]:
    """The kinds of fact both texts state, so that the policy's can be checked against the
    obligation's."""
    kinds: set[Kind] = set()
    if rule.minimum_days and policy.minimum_days:
        kinds.add("period")
    if rule.notice_days and policy.notice_days:
        kinds.add("notice")
    if (rule.deadline_days or rule.urgent) and policy.deadline_days:
        kinds.add("deadline")
    if rule.frequency_months and policy.frequency_months:
        kinds.add("frequency")
    if _prompt_only(rule) and policy.frequency_months and not policy.urgent and \
            not policy.deadline_days and not _ON_EVENT.search(policy.text):
        kinds.add("cycle")
    if _AT_LEAST.search(rule_text):
        if {c for c, _ in rule.amounts} & {c for c, _ in policy.amounts}:
            kinds.add("amount")
        if rule.percents and policy.percents:
            kinds.add("percent")
    if rule.mandatory and not rule.permissive and not rule.discretionary and \
            policy.discretionary:
        kinds.add("modality")
    if rule.independent and policy.approval and not policy.independent:
        kinds.add("independence")
    if rule.due_dates and policy.due_dates:
        kinds.add("date")
    if rule.before_start and not rule.after_start and policy.after_start and \
            not policy.before_start and \
            acts.starts_at(rule.before_start) == acts.starts_at(policy.after_start):
        kinds.add("order")
    forbidden = {verb for verb, _, _ in rule.forbids}
    if forbidden & {verb for verb, _ in policy.allows} or _goes_ahead(rule, policy) or \
            any(acts.does(policy.text, verb, objects) for verb, objects, _ in rule.forbids):
        kinds.add("prohibition")
    if rule.retains and policy.shifts:
        kinds.add("responsibility")
    if rule.weighs and rule.mandatory and policy.dismisses:
        kinds.add("risk")
    if rule.excludes and rule.mandatory and policy.accepts and \
            rule.excludes[0] <= set(terms(policy.text)):
        kinds.add("exclusion")
    if rule.to_mlro and rule.mandatory and policy.filters:
        kinds.add("filter")
    if rule.links and policy.splits:
        kinds.add("aggregation")
    if rule.returns and rule.mandatory and policy.keeps:
        kinds.add("refund")
    if rule.full_access and rule.mandatory and policy.limits_access and \
            acts.to_governors(rule.full_access) == acts.to_governors(policy.limits_access):
        kinds.add("access")
    if rule.holds and acts.holder(rule.holds) == acts.holder(policy.moved_from):
        kinds.add("delegation")
    if rule.holds and rule.mandatory and policy.owned_by and not policy.moved_from and \
            owners.same_duty(rule_text, rule.holds, policy.owned_by[0]):
        kinds.add("owner")
    if rule.mandatory and rule.every and policy.sampled and \
            any(samples.same_things(what, policy.sampled[0]) for what, _ in rule.every):
        kinds.add("sample")
    if rule.regulated and policy.unregulated:
        kinds.add("unregulated")
    if rule.keeps_status and policy.claims_authorisation:
        kinds.add("status")
    if rule.mandatory and rule.includes and policy.outside and \
            out_of_scope.leaves_out_included(rule.includes[0], policy.outside[0]):
        kinds.add("outside")
    if rule.undisclosed and policy.accepts_unnamed:
        kinds.add("undisclosed")
    if rule.all_activities and policy.carves_out:
        kinds.add("scope")
    if rule.eases_low and policy.eases_beyond:
        kinds.add("easing")
    if rule.cdd_first and rule.mandatory and policy.while_pending:
        kinds.add("pending")
    if rule.on_event and rule.mandatory and policy.deferred:
        kinds.add("deferral")
    if rule.defines and policy.not_counted and \
            definitions.narrows(rule.defines, policy.not_counted):
        kinds.add("definition")
    if rule.mandatory and policy.review_leaves_out and \
            review_scope.has_review_do(rule_text, policy.review_leaves_out[0]):
        kinds.add("review")
    if rule.exempt_share and policy.percents and \
            min(policy.percents) < rule.exempt_share[0]:
        kinds.add("share")  # an exemption taken on a smaller share than its condition's
    if rule.mandatory and policy.bounded and \
            bounds.named_without_share(rule_text, policy.bounded[0]):
        kinds.add("bound")
    if rule.mandatory and not rule.permissive and policy.held_to and \
            risk_tiers.narrower(rule_text, policy.held_to[0]):
        kinds.add("tier")
    if rule.mandatory and not rule.permissive and policy.substitutes and \
            policy.substitutes[0] and policy.substitutes[0] <= set(terms(rule_text)):
        kinds.add("waiver")
    return kinds


def mentions(kind: Kind, facts: Facets) -> bool:
    """Whether ``facts`` say anything of ``kind`` (an urgency is a deadline's kind)."""
    if kind in ACTS_AGAINST:
        said, says = ACTS_AGAINST[kind]
        return bool(said(facts) or says(facts))
    match kind:
        case "period":
            return bool(facts.minimum_days)
        case "notice":
            return bool(facts.notice_days)
        case "deadline":
            return bool(facts.deadline_days or facts.urgent)
        case "frequency":
            return bool(facts.frequency_months)
        case "amount":
            return bool(facts.amounts)
        case "percent":
            return bool(facts.percents)
        case "modality":
            return bool(facts.discretionary or facts.mandatory)
        case "independence":
            return facts.approval or facts.independent
        case "date":
            return bool(facts.due_dates)
        case "order":
            return bool(facts.before_start or facts.after_start)
        case "prohibition":
            return bool(facts.forbids or facts.allows)
        case "waiver":
            return facts.substitutes is not None
        case "cycle":
            return bool(facts.urgent or facts.frequency_months)
        case "exclusion":
            return bool(facts.excludes or facts.accepts)
        case "tier":
            return facts.held_to is not None
        case "bound":
            return facts.bounded is not None
        case "review":
            return facts.review_leaves_out is not None
        case "share":
            return bool(facts.exempt_share or facts.percents)
        case "sample":
            return bool(facts.every or facts.sampled)
    return False  # pragma: no cover - every kind is handled above


# A threshold's edge: "25% or more", "at least USD 15,000" take the value itself in; "more
# than 25 per cent", "over USD 15,000" leave it out.
_INCLUSIVE_AFTER = re.compile(r"^\s*(?:or more|or above|or greater|or higher|and above)\b", re.I)
_INCLUSIVE_BEFORE = re.compile(r"\b(?:at least|not less than|a minimum of|equal to or "
                               r"(?:(?:more|greater) than|over|above))\s*(?:a\s+)?$", re.I)
_EXCLUSIVE_BEFORE = re.compile(r"\b(?:more than|greater than|over|above|exceeding|in excess of)"
                               r"\s*(?:a\s+)?$", re.I)


def _edge_left_out(rule: str, policy: str, figure: re.Pattern[str]) -> tuple[str, str] | None:
    """The rule's threshold and the policy's, when the policy states the same figure but
    leaves out the figure itself ("25% or more" against "more than 25 per cent": a holding
    of exactly 25 % escapes the policy). As written, the rule's first."""
    theirs = {value: shown for value, edge, shown in _edges(policy, figure) if edge == "out"}
    return next(((shown, theirs[value]) for value, edge, shown in _edges(rule, figure)
                 if edge == "in" and value in theirs), None)


def _edges(text: str, figure: re.Pattern[str]) -> list[tuple[tuple[str, float], str, str]]:
    """Each threshold of ``text`` matched by ``figure``: its (currency, value), whether it
    takes its figure "in" or leaves it "out", and its words as written."""
    found = []
    for m in figure.finditer(text):
        start = max(0, m.start() - 40)
        before = text[start:m.start()]
        if inclusive := _INCLUSIVE_AFTER.search(text[m.end():]):
            found.append((_figure(m), "in", text[m.start():m.end() + inclusive.end()].strip()))
        elif inclusive := _INCLUSIVE_BEFORE.search(before):
            found.append((_figure(m), "in", text[start + inclusive.start():m.end()].strip()))
        elif exclusive := _EXCLUSIVE_BEFORE.search(before):
            found.append((_figure(m), "out", text[start + exclusive.start():m.end()].strip()))
    return found


def conflict(kind: Kind, rule: Facets, policy: Facets) -> Conflict | None:
    """Whether the policy's statement of ``kind`` falls short of the obligation's. A stricter
    policy (keeps records longer, reports sooner, reviews more often, a lower threshold) is no
    conflict; modality and independence are conflicts whenever comparable."""
    p = policy.phrases
    r = rule.phrases
    if kind in ACTS_AGAINST:  # comparable only when the policy's act opposes the rule's
        said, says = ACTS_AGAINST[kind]
        return Conflict(kind, said(rule) or "", says(policy) or "")
    match kind:
        case "period":
            if max(policy.minimum_days) < min(rule.minimum_days):
                return Conflict(kind, r["period"], p["period"])
        case "notice":
            if max(policy.notice_days) < min(rule.notice_days):
                return Conflict(kind, r["notice"], p["notice"])
        case "deadline":
            if rule.deadline_days and min(policy.deadline_days) > max(rule.deadline_days):
                return Conflict(kind, r["deadline"], p["deadline"])
            if not rule.deadline_days and rule.urgent and not policy.urgent and \
                    min(policy.deadline_days) > URGENT_DAYS:
                return Conflict(kind, rule.urgent, p["deadline"])
        case "frequency":
            if min(policy.frequency_months) > max(rule.frequency_months):
                return Conflict(kind, r["frequency"], p["frequency"])
        case "amount":
            for currency, value in rule.amounts:
                theirs = [v for c, v in policy.amounts if c == currency]
                if theirs and min(theirs) > value:
                    return Conflict(kind, r["amount"], p["amount"])
            if edge := _edge_left_out(rule.text, policy.text, _MONEY):
                return Conflict(kind, *edge)
        case "percent":
            if min(policy.percents) > max(rule.percents):
                return Conflict(kind, r["percent"], p["percent"])
            if edge := _edge_left_out(rule.text, policy.text, _PERCENT):
                return Conflict(kind, *edge)
        case "modality":
            return Conflict(kind, r["mandatory"], policy.discretionary or "")
        case "independence":
            return Conflict(kind, "independently", p["approval"])
        case "date":
            if min(policy.due_dates) > max(rule.due_dates):
                return Conflict(kind, r["date"], p["date"])
        case "order":
            if rule.before_start and policy.after_start:
                return Conflict(kind, rule.before_start, policy.after_start)
        case "prohibition":
            return _prohibition(rule, policy)
        case "waiver":
            if policy.substitutes:
                return Conflict(kind, r.get("mandatory", ""), policy.substitutes[1])
        case "cycle":  # comparable only when the policy names a cycle and no promptness
            return Conflict(kind, rule.urgent or "", p["frequency"])
        case "exclusion":  # comparable only when the policy accepts what the rule excludes
            return Conflict(kind, rule.excludes[1] if rule.excludes else "",
                            policy.accepts or "")
        case "share":  # comparable only when the policy's share is below the condition's
            if rule.exempt_share:
                return Conflict(kind, rule.exempt_share[1], p.get("percent", ""))
        case "review":  # comparable only when the rule has the review do what it leaves out
            if policy.review_leaves_out:
                return Conflict(kind, r.get("mandatory", ""), policy.review_leaves_out[1])
        case "bound":  # comparable only when the rule names the persons with no share
            if policy.bounded:
                return Conflict(kind, bounds.named_without_share(rule.text, policy.bounded[0])
                                or "", policy.bounded[1])
        case "sample":  # comparable only when the sample is of what the rule has all of
            if policy.sampled:
                asked = [p for what, p in rule.every
                         if samples.same_things(what, policy.sampled[0])]
                return Conflict(kind, asked[0] if asked else "", policy.sampled[1])
        case "tier":  # comparable only when the policy's bound leaves customers out
            return Conflict(kind, r.get("mandatory", ""),
                            policy.held_to[1] if policy.held_to else "")
    return None


def _prompt_only(rule: Facets) -> bool:
    """A duty to act promptly ("must promptly notify", "immediately"), with no period or
    cycle of its own: a policy that waits for its annual (or quarterly) round to do it
    does not act promptly."""
    return bool(rule.urgent) and rule.mandatory and not rule.deadline_days and \
        not rule.frequency_months


def _prohibition(rule: Facets, policy: Facets) -> Conflict | None:
    """A forbidden act the policy allows ("may continue" what must not be continued; "may
    execute" what must not be carried out until …), says it does ("charging … a fee"), or
    goes ahead with in the case the rule forbids it in ("cannot be identified, the Matter
    may proceed")."""
    policy_terms = set(terms(policy.text))
    for verb, objects, phrase in rule.forbids:
        for allowed, said in policy.allows:
            if allowed == verb and (objects & policy_terms or
                                    (acts.timed(rule.text) and acts.timed(policy.text))):
                return Conflict("prohibition", phrase, said)
        if (word := acts.does(policy.text, verb, objects)):
            return Conflict("prohibition", phrase, word)
    going = _goes_ahead(rule, policy)
    return Conflict("prohibition", rule.forbids[0][2], going) if going else None


def _forbids_when_unable(rule: Facets) -> bool:
    """A rule forbidding an act where something cannot be done ("must not establish … if
    … prevents … from identifying")."""
    return bool(rule.forbids) and acts.unable(rule.text)


def _going_ahead(clause: Facets) -> str | None:
    """The phrase by which a clause lets the matter go ahead ("may proceed") where something
    cannot be done ("cannot be identified"), if it does."""
    if not acts.unable(clause.text):
        return None
    return next((said for verb, said in clause.allows if verb in acts.GO_AHEAD), None)


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
    (_forbids_when_unable, lambda c: _going_ahead(c) is not None),
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


def _goes_ahead(rule: Facets, policy: Facets) -> str | None:
    """A policy that goes ahead in the case a rule forbids acting in: the phrase, if so."""
    return _going_ahead(policy) if _forbids_when_unable(rule) else None
