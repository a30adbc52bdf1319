"""Typed facts of a sentence: periods, deadlines, frequencies, amounts, thresholds,
percentages, who approves, permitted vs prohibited, all vs a sample. Each fact keeps its
verbatim span and a normalised value, so a rule and a policy are compared on values ("five
years" is shorter than "at least six years") rather than words. Patterns are of the drafting
of rules in general (numbers, units, comparators), never of one regulation's terms."""

from __future__ import annotations

import re

from regintel.domain.coverage import Comparator, TypedFact
from regintel.obligations.lexical import content_words

_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
          "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
          "fourteen": 14, "fifteen": 15, "sixteen": 16, "eighteen": 18, "twenty": 20,
          "twenty-four": 24, "thirty": 30, "forty-five": 45, "sixty": 60, "ninety": 90,
          "a": 1, "an": 1}
_DAYS = {"hour": 1 / 24, "day": 1.0, "business day": 1.4, "working day": 1.4,
         "calendar day": 1.0, "week": 7.0, "month": 30.0, "calendar month": 30.0,
         "year": 365.0, "calendar year": 365.0}
_NUMBER = (r"(?:\d+(?:[.,]\d+)*|" + "|".join(sorted(map(re.escape, _WORDS), key=len,
                                                        reverse=True)) + ")")
_UNIT = r"(?:business|working|calendar)?[ -]?(?:hour|day|week|month|year)s?"
# Words apart by any space: a PDF line may break inside "at / least".
_AT_LEAST = r"at least|not less than|no less than|a minimum of|minimum of|no fewer than" \
    .replace(" ", r"\s+")
_AT_MOST = r"at most|not more than|no more than|a maximum of|maximum of|up to|not exceeding" \
    .replace(" ", r"\s+")
_WITHIN = r"within|no later than|not later than|at the latest|before the end of|by the end of" \
    .replace(" ", r"\s+")
_DURATION = re.compile(
    rf"\b(?:(?P<cmp>{_AT_LEAST}|{_AT_MOST}|{_WITHIN}|for|of|after|every)\s+)?"
    rf"(?:(?:a )?period of\s+)?(?:the\s+)?(?P<n>{_NUMBER})(?:\s*\(\d+\))?[\s-]+(?P<u>{_UNIT})\b",
    re.IGNORECASE)
# An age limit is a duration too ("at least 16 years old" against "aged 12 or older").
_AGE = re.compile(rf"\b(?:aged|age of)\s+(?P<n>{_NUMBER})(?:\s+years?)?"
                  r"(?P<up>\s+(?:or|and)\s+(?:older|over|above))?\b", re.IGNORECASE)
_ACT = re.compile(r"\b(?:notif|report|submit|inform|respond|file|provide|deliver)\w*\b",
                  re.IGNORECASE)
# Keeping something, or disposing of it after a time: either way the period is how long it
# is kept ("purge the files … closed more than three years ago").
_KEPT = re.compile(r"\b(?:kept|keeps?|retain\w*|stored?|stores|held|holds?|maintain\w*|"
                   r"preserv\w*|archiv\w*|purg\w*|delet\w*|destroy\w*|eras\w*|"
                   r"dispos\w*)\b", re.IGNORECASE)
# What a sentence sets against what it does ("every second year instead of every year") is
# not its own fact.
_INSTEAD = re.compile(r"\b(?:instead of|rather than|in place of)\b[^.;,]*", re.IGNORECASE)
_PROMPT = re.compile(r"\b(?:immediately|forthwith|without (?:undue )?delay|promptly|"
                     r"as soon as (?:reasonably )?(?:practicable|possible))\b", re.IGNORECASE)
_FREQUENCY = re.compile(
    r"\b(?:(?:at least|no less than)\s+)?(?:"
    r"(?P<word>annually|yearly|every year|each year|once a year|per year|a year|"
    r"semi-annually|half-yearly|twice a year|quarterly|every quarter|each quarter|"
    r"monthly|every month|each month|weekly|every week|daily|every day|each day)|"
    rf"(?:once\s+)?every\s+(?P<n>{_NUMBER}|second|other|third|fourth)\s+(?P<u>{_UNIT}))\b",
    re.IGNORECASE)
_ORDINAL = {"second": 2, "other": 2, "third": 3, "fourth": 4}
_FREQ_DAYS = {"annually": 365.0, "yearly": 365.0, "every year": 365.0, "each year": 365.0,
              "once a year": 365.0, "per year": 365.0, "a year": 365.0, "semi-annually": 182.0,
              "half-yearly": 182.0, "twice a year": 182.0, "quarterly": 91.0,
              "every quarter": 91.0, "each quarter": 91.0, "monthly": 30.0, "every month": 30.0,
              "each month": 30.0, "weekly": 7.0, "every week": 7.0, "daily": 1.0,
              "every day": 1.0, "each day": 1.0}
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december")
_MONTH = "(?:" + "|".join(m.capitalize() for m in _MONTHS) + ")"
# A date in the year something is due by: "by the end of April", "by 30 June", "before 31 March".
_DATE = re.compile(rf"\b(?:by|before|no later than|not later than)\s+(?:the\s+end\s+of\s+"
                   rf"(?P<end>{_MONTH})|(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?P<month>{_MONTH})"
                   rf"|(?P<month2>{_MONTH})\s+(?P<day2>\d{{1,2}})\b)")
_CURRENCY = r"(?:[A-Z]{3}|US\$|\$|€|£)"
# After "<number> <code>", what makes the pair a legal citation, not a sum: a section number,
# "§", or a part of the code ("22 CFR 120.1", "31 USC § 5318", "12 CFR Part 1026").
_CITED_SECTION = re.compile(r"\s*(?:§|\d(?![\d.,]*\s+(?:times|per|each)\b)|"
                            r"(?:Part|Chapter|Section|sec\.|pt\.)\s*\d)", re.I)
_REFERENCE = re.compile(r"\d+\.\d\Z|\d+(?:\.\d+){2,}\Z")
_AMOUNT = re.compile(
    rf"(?:(?P<cmp>{_AT_LEAST}|{_AT_MOST}|exceeding|above|below|over|under|more than|less than)"
    rf"\s+)?(?:(?P<cur>{_CURRENCY})\s?(?P<n>\d{{1,3}}(?:[ ,.]\d{{3}})+|\d+(?:\.\d+)?)"
    r"(?:\s?(?P<mult>million|billion|thousand|m|bn|k)\b)?"
    rf"|(?P<n2>\d{{1,3}}(?:[ ,.]\d{{3}})+|\d+(?:\.\d+)?)\s?(?P<mult2>million|billion)?\s?"
    rf"(?P<cur2>{_CURRENCY})\b)")
_PERCENT = re.compile(
    rf"(?:(?P<cmp>{_AT_LEAST}|{_AT_MOST}|more than|less than|above|below)\s+)?"
    r"(?P<n>\d+(?:\.\d+)?)\s?(?:%|per ?cent\b)", re.IGNORECASE)
_COUNT = re.compile(
    rf"\b(?P<cmp>{_AT_LEAST}|{_AT_MOST}|more than|fewer than|less than)\s+(?P<n>{_NUMBER})\s+"
    r"(?P<noun>[a-z]+)", re.IGNORECASE)
_APPROVER = re.compile(
    r"\b(?:approved|authori[sz]ed|signed off|decided|determined|agreed|endorsed|reviewed|"
    r"ratified)\s+(?:in advance\s+|in writing\s+|annually\s+)?by\s+(?:(?:the|its|a|an)\s+)?"
    r"(?P<who>(?:[A-Za-z][\w'’-]*)(?:\s+(?:of\s+(?:the\s+)?)?[A-Za-z][\w'’-]*){0,4}?)"
    r"(?=\s*(?:[,.;:)]|$|\s(?:and|or|before|prior|within|at|on|in|for|if|where|who|which|"
    r"that|to|with)\b))"
    r"|\b(?:(?:prior|written)\s+)?(?:approval|consent|sign-off|authori[sz]ation)\s+of\s+"
    r"(?:the\s+|its\s+)?(?P<who2>[A-Za-z][\w'’-]*(?:\s+[A-Za-z][\w'’-]*){0,3}?)"
    r"(?=\s*(?:[,.;:)]|$|\s(?:and|or|before|prior|within|for|if|where|to)\b))")
_ALL = re.compile(r"\b(?:all|every|each)\b(?!\s+(?:\w+\s+)?(?:years?|months?|weeks?|days?|"
                  r"quarters?|hours?)\b)", re.IGNORECASE)
_OR_MORE = re.compile(r"^\s*(?:or (?:more|above|over|greater)|and above)\b", re.IGNORECASE)
_OR_LESS = re.compile(r"^\s*(?:or (?:less|below|fewer)|and below)\b", re.IGNORECASE)
_SAMPLE = re.compile(r"\b(?:a sample of|sample[sd]?|samples of|a selection of|selected|"
                     r"some|on a test basis|spot[- ]checks?)\b", re.IGNORECASE)
_PERMITTED = re.compile(r"\b(?:may|can|is permitted to|are permitted to|is allowed to|"
                        r"are allowed to|is not required to|are not required to|"
                        r"need not|at (?:its|their) discretion|optional(?:ly)?)\b",
                        re.IGNORECASE)
_PROHIBITED = re.compile(r"\b(?:must not|shall not|may not|cannot|is prohibited|"
                         r"are prohibited|is not permitted|are not permitted|never)\b",
                         re.IGNORECASE)
_REQUIRED = re.compile(r"\b(?:must|shall|is required to|are required to|will)\b",
                       re.IGNORECASE)
_MULT = {"thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "billion": 1e9, "bn": 1e9}


def number(word: str) -> float | None:
    word = word.lower().strip()
    if word in _WORDS:
        return float(_WORDS[word])
    try:
        return float(word.replace(",", ""))
    except ValueError:
        return None


def _comparator(word: str | None) -> Comparator:
    if not word:
        return "none"
    word = " ".join(word.lower().split())
    if re.fullmatch(_AT_LEAST, word, re.IGNORECASE) or word in ("more than", "exceeding",
                                                                 "above", "over"):
        return "at_least"
    if re.fullmatch(_AT_MOST, word, re.IGNORECASE) or word in ("less than", "fewer than",
                                                               "below", "under"):
        return "at_most"
    if re.fullmatch(_WITHIN, word, re.IGNORECASE):
        return "within"
    return "none"


def _unit_days(unit: str) -> float:
    unit = " ".join(unit.lower().replace("-", " ").split()).rstrip("s")
    return _DAYS.get(unit, _DAYS.get(unit.split()[-1], 1.0))


def durations(sentence: str) -> list[TypedFact]:
    """Periods, deadlines and frequencies, each with its value in days."""
    found: list[TypedFact] = []
    taken: list[tuple[int, int]] = []
    for m in _FREQUENCY.finditer(sentence):
        if m["word"]:
            days = _FREQ_DAYS[m["word"].lower()]
        else:
            n = _ORDINAL.get(m["n"].lower()) or number(m["n"])
            if n is None:
                continue
            days = n * _unit_days(m["u"])
        found.append(TypedFact(kind="frequency", text=m[0], value=days, unit="day",
                               comparator="at_least" if m[0].lower().startswith(
                                   ("at least", "no less")) else "none"))
        taken.append(m.span())
    for m in _DURATION.finditer(sentence):
        if any(s <= m.start() < e for s, e in taken) or (m["cmp"] or "").lower() == "every":
            continue
        n = number(m["n"])
        if n is None or (m["n"].lower() in ("a", "an") and not m["cmp"]):
            continue
        cmp_word = (m["cmp"] or "").lower()
        comparator = _comparator(cmp_word)
        # "keeps … reports … for five years" is how long something is kept; "notify …" with
        # no keeping before it, a time to act.
        kept = _KEPT.search(sentence[:m.start()]) is not None
        deadline = comparator == "within" or cmp_word == "after" or bool(
            _ACT.search(sentence[max(0, m.start() - 80):m.start()])
            and comparator != "at_least" and not kept)
        text = m[0] if m["cmp"] and cmp_word not in ("for", "of") else \
            m[0][len(m["cmp"] or ""):].strip()
        found.append(TypedFact(kind="deadline" if deadline else "period", text=text,
                               value=n * _unit_days(m["u"]), unit="day",
                               comparator="within" if deadline and comparator == "none"
                               else comparator))
    for m in _AGE.finditer(sentence):
        age = number(m["n"])
        if age is not None and m["n"].lower() not in ("a", "an") and not any(
                s <= m.start("n") < e for s, e in taken):
            found.append(TypedFact(kind="period", text=m[0], value=age * _DAYS["year"],
                                   unit="day", comparator="at_least" if m["up"] else "none"))
    for m in _DATE.finditer(sentence):
        month = _MONTHS.index((m["end"] or m["month"] or m["month2"]).lower())
        day = 30.0 if m["end"] else float(m["day"] or m["day2"])
        found.append(TypedFact(kind="deadline", text=m[0], value=month * 30.4 + day,
                               unit="day of year", comparator="within"))
    for m in _PROMPT.finditer(sentence):
        value = 0.0 if m[0].lower() in ("immediately", "forthwith") else None
        found.append(TypedFact(kind="deadline", text=m[0], value=value, unit="day",
                               comparator="within"))
    return found


def amounts(sentence: str) -> list[TypedFact]:
    found = []
    for m in _AMOUNT.finditer(sentence):
        digits, currency = (m["n"], m["cur"]) if m["n"] else (m["n2"], m["cur2"])
        if currency is None or digits is None:
            continue
        if len(currency) == 3 and currency.isalpha() and currency in ("THE", "AND", "FOR"):
            continue
        if currency.isalpha() and not (m["mult"] or m["mult2"]) and _REFERENCE.match(digits):
            continue  # "GEN 7.2", "COBS 3.5.1": a rule cited by its rulebook's short name
        if m["cur2"] and _CITED_SECTION.match(sentence, m.end()):
            continue  # "22 CFR 120.1", "31 USC § 5318": a title of a code, then its section
        value = number(re.sub(r"[ ,](?=\d{3}\b)", "", digits))
        if value is None:
            continue
        mult = (m["mult"] or m["mult2"] or "").lower()
        value *= _MULT.get(mult, 1.0)
        comparator = _comparator(m["cmp"])
        after = sentence[m.end():m.end() + 20]
        if comparator == "none" and _OR_MORE.match(after):
            comparator = "at_least"
        elif comparator == "none" and _OR_LESS.match(after):
            comparator = "at_most"
        found.append(TypedFact(kind="amount", text=m[0].strip(), value=value,
                               unit=currency.replace("US$", "USD").replace("$", "USD"),
                               comparator=comparator))
    return found


def percentages(sentence: str) -> list[TypedFact]:
    return [TypedFact(kind="percentage", text=m[0], value=float(m["n"]), unit="%",
                      comparator=_comparator(m["cmp"])) for m in _PERCENT.finditer(sentence)]


def thresholds(sentence: str) -> list[TypedFact]:
    found = []
    for m in _COUNT.finditer(sentence):
        noun = m["noun"].lower().rstrip("s")
        if noun in {"hour", "day", "week", "month", "year", "per", "cent", "percent"} or \
                noun.startswith(("business", "working", "calendar")):
            continue
        n = number(m["n"])
        if n is not None and m["n"].lower() not in ("a", "an"):
            found.append(TypedFact(kind="threshold", text=m[0], value=n, unit=noun,
                                   comparator=_comparator(m["cmp"])))
    return found


def approvers(sentence: str) -> list[TypedFact]:
    found = []
    for m in _APPROVER.finditer(sentence):
        who = (m["who"] or m["who2"] or "").strip()
        if who and who.lower() not in ("it", "them", "him", "her", "reference", "way"):
            found.append(TypedFact(kind="approver", text=m[0].strip(), unit=who))
    return found


# When a period runs from: "from the date on which the business relationship ends", "from
# the end of the calendar year", "after the termination of the contract", to the clause's end
# (and its "whichever is later").
_START = re.compile(
    r"\b(?:from|after)\s+(?:the\s+)?(?:date|day|end|time|termination|completion|expiry|"
    r"cessation|closure|conclusion|making)\b[^.;:]*", re.IGNORECASE)
# What every start says, so "from the date of" and "from the end of" are told apart by what
# they run from, not by these.
_START_WORDS = frozenset({"from", "after", "date", "day", "time", "which", "on", "of", "the"})


def starts(sentence: str) -> list[TypedFact]:
    """When each period of ``sentence`` runs from; ``unit`` the start's own words, so two
    starts in other words of the same event compare equal only when those words are one."""
    found = []
    for m in _START.finditer(" ".join(sentence.split())):
        text = m[0].strip().rstrip(",")
        words = content_words(text) - _START_WORDS
        if words:
            found.append(TypedFact(kind="start", text=text, unit=" ".join(sorted(words))))
    return found


def permission(sentence: str, strength: str | None = None) -> TypedFact | None:
    """Permitted vs prohibited: the rule's strength when known, else the sentence's modal."""
    if strength == "prohibition" or (strength is None and _PROHIBITED.search(sentence)):
        hit = _PROHIBITED.search(sentence)
        return TypedFact(kind="permission", text=hit[0] if hit else "", unit="prohibited")
    if strength is None:
        required = _REQUIRED.search(sentence)
        allowed = _PERMITTED.search(sentence)
        if allowed and (required is None or allowed.start() < required.start()):
            return TypedFact(kind="permission", text=allowed[0], unit="permitted")
        if required:
            return TypedFact(kind="permission", text=required[0], unit="required")
    return None


def extent(sentence: str) -> TypedFact | None:
    """All vs a sample: a sentence that speaks of a sample is "sample", of all/every "all"."""
    sample = _SAMPLE.search(sentence)
    if sample:
        return TypedFact(kind="extent", text=sample[0], unit="sample")
    every = _ALL.search(sentence)
    if every:
        return TypedFact(kind="extent", text=every[0], unit="all")
    return None


def facts_of(sentence: str, strength: str | None = None) -> tuple[TypedFact, ...]:
    """Every typed fact of ``sentence``; ``strength`` is the obligation's when it is a rule
    (its permission fact is then the rule's force), None for a policy's sentence."""
    sentence = _INSTEAD.sub(lambda m: " " * len(m[0]), sentence)
    found = durations(sentence) + amounts(sentence) + percentages(sentence) + \
        thresholds(sentence) + approvers(sentence)
    for single in (permission(sentence, strength), extent(sentence)):
        if single is not None:
            found.append(single)
    distinct: dict[tuple[str, str], TypedFact] = {}
    for fact in found:  # "without undue delay" twice in a sentence is one fact
        distinct.setdefault((fact.kind, fact.text.lower()), fact)
    return tuple(distinct.values())
