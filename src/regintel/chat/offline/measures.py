"""The measures a text states and how firmly it states them: periods ("at least six years",
"within 30 days"), urgency ("without delay", "immediately"), frequencies ("semi-annually",
"every two years"), money and percentage thresholds and their edges, annual due dates,
modality ("must" vs "may") and independence ("not subject to the approval of")."""

from __future__ import annotations

import re
from dataclasses import dataclass

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
ON_EVENT = re.compile(r"\bwhenever\b|\b(?:each|every) time\b|\bon (?:every|each|any) new\b|"
                      r"\bas soon as\b", re.I)
MONEY = re.compile(r"(?P<cur>USD|US\$|\$|AED|EUR|€|GBP|£)\s?(?P<v>\d{1,3}(?:,\d{3})+|\d+)"
                   r"(?:\.\d+)?\s*(?P<mult>million|m\b|thousand|k\b)?", re.I)
# The currency after the figure: "15,000 US dollars", "55,000 AED", "1 million dirhams".
_MONEY_AFTER = re.compile(r"\b(?P<v>\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s*(?P<mult>million|"
                          r"thousand)?\s?(?P<cur>USD|US dollars?|dollars?|AED|dirhams?|EUR|"
                          r"euros?|GBP|pounds sterling)\b", re.I)
PERCENT = re.compile(r"(?P<v>\d+(?:\.\d+)?)\s?(?:%|per ?cent)", re.I)
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
AT_LEAST = re.compile(r"\b(or more|or above|or greater|equal to or (?:more|greater)|exceed\w*|"
                      r"above|over)\b", re.I)


@dataclass(frozen=True)
class Measures:
    minimum_days: tuple[float, ...]  # "at least six years": floors
    deadline_days: tuple[float, ...]  # "within 30 days": ceilings
    # How long before an event something must be done: "at least ten Business Days in
    # advance of it ceasing", "no later than five Business Days before trading ends" (both
    # floors on the lead time, however the quantifier reads).
    notice_days: tuple[float, ...]
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
    due_dates: tuple[int, ...]  # annual due dates, as days of the year ("by 30 June")
    # The share an exemption's condition requires ("wholly-owned by the Federal Government":
    # 100), as written; None where the text is no exemption's condition.
    exempt_share: tuple[float, str] | None


def measure(text: str) -> Measures:
    """The measures ``text`` states, and how firmly."""
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
    for m in [*MONEY.finditer(text), *_MONEY_AFTER.finditer(text)]:
        amounts.append(_figure(m))
        phrases.setdefault("amount", m[0].strip())
    percents = [float(m["v"]) for m in PERCENT.finditer(text)]
    if percents:
        phrases["percent"] = PERCENT.search(text)[0]  # type: ignore[index]
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
    return Measures(tuple(minimum), tuple(deadline), tuple(notice), urgent[0] if urgent else None,
                    tuple(frequency), tuple(amounts), tuple(percents), bool(mandatory),
                    permissive[0] if permissive else None,
                    discretionary[0].rstrip(", ") if discretionary else None,
                    bool(_INDEPENDENT.search(text)), bool(approval), phrases, tuple(due),
                    _exempt_share(text))


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
    if m := PERCENT.search(text):
        return float(m["v"]), m[0]
    return None


def _day_of_year(m: re.Match[str]) -> int:
    """The day of the year a due date falls on; a month without a day means its last day."""
    month = _MONTHS.index(m["m"].lower())
    day = int(m["d1"] or m["d2"] or _MONTH_DAYS[month])
    return sum(_MONTH_DAYS[:month]) + min(day, _MONTH_DAYS[month])


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
# A threshold's edge: "25% or more", "at least USD 15,000" take the value itself in; "more
# than 25 per cent", "over USD 15,000" leave it out.
_INCLUSIVE_AFTER = re.compile(r"^\s*(?:or more|or above|or greater|or higher|and above)\b", re.I)
_INCLUSIVE_BEFORE = re.compile(r"\b(?:at least|not less than|a minimum of|equal to or "
                               r"(?:(?:more|greater) than|over|above))\s*(?:a\s+)?$", re.I)
_EXCLUSIVE_BEFORE = re.compile(r"\b(?:more than|greater than|over|above|exceeding|in excess of)"
                               r"\s*(?:a\s+)?$", re.I)


def edge_left_out(rule: str, policy: str, figure: re.Pattern[str]) -> tuple[str, str] | None:
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
