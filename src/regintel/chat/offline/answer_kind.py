"""What kind of fact a question asks for, and whether a sentence states one: "How often …?"
wants a frequency, "How long …?" a period, "Who …?" the person who acts or approves, "How
much …?" an amount. A sentence stating the kind asked for answers the question; one that only
shares its words ("These records must be kept for six years" to "How often must staff be
trained?") does not.

Kinds are read from the question's wording and from general drafting forms of periods,
frequencies, amounts and roles, which every regulation writes the same way."""

from __future__ import annotations

import re
from typing import Literal

Kind = Literal["frequency", "period", "person", "amount"]

_NUMBER = (r"(?:\d+(?:\.\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
           r"fifteen|twenty|thirty|sixty|ninety|seventy-two)")
_UNIT = r"(?:business |working |calendar |clear )?(?:hours?|days?|weeks?|months?|years?)"

_ASKED: tuple[tuple[Kind, re.Pattern[str]], ...] = (
    ("frequency", re.compile(r"\bhow (?:often|frequently|regularly)\b|\bfrequency\b|"
                             r"\bhow many times\b", re.I)),
    ("period", re.compile(r"\bhow (?:long|quickly|soon|fast)\b|\bdeadline\b|\bby when\b|"
                          r"\btime ?limit\b|\bwithin how\b", re.I)),
    ("amount", re.compile(r"\bhow much\b|\bmaximum\b|\bminimum\b|\bthreshold\b|"
                          r"\bwhat(?:'s|\u2019s| is| are) the "
                          r"(?:fines?|penalt(?:y|ies)|fees?|limits?)\b",
                          re.I)),
    ("person", re.compile(r"^\W*(?:and |so |but )?who(?:m|se)?\b|\bwho (?:has|must|should|"
                          r"needs?|is|are|can|may|approves?|signs?|decides?)\b", re.I)),
)

_STATES: dict[Kind, re.Pattern[str]] = {
    "frequency": re.compile(
        r"\b(?:annual(?:ly)?|yearly|monthly|quarterly|weekly|daily|biennial(?:ly)?|"
        r"periodic(?:ally)?|regular(?:ly)?|at (?:regular|appropriate) intervals|"
        r"(?:at least )?once (?:a|an|every|per|in)|every \w+|each (?:year|month|quarter|week|"
        r"day|calendar year)|per (?:annum|year|month)|ongoing basis|from time to time)\b",
        re.I),
    "period": re.compile(
        rf"\b{_NUMBER}[\s-]{_UNIT}\b|\bwithout (?:undue )?delay\b|\bpromptly\b|"
        r"\bimmediately\b|\bas soon as (?:reasonably )?(?:practicable|possible)\b|"
        r"\bno later than\b|\bbefore the end of\b|\bin a timely manner\b", re.I),
    "amount": re.compile(
        r"(?:[$€£¥]|\b(?:USD|EUR|GBP|AED|US dollars?|euros?)\b)\s?\d|\d[\d,.]*\s?(?:%|per ?cent|"
        r"USD|EUR|GBP|AED|euros?|dollars?|million|billion)\b", re.I),
    "person": re.compile(
        r"\b(?:approv\w*|sign(?:ed)?[- ]off|authoris\w*|authoriz\w*|appoint\w*|responsib\w*|"
        r"senior management|board|officer|director|committee|designat\w*|"
        r"report(?:s|ed)? to|notif\w* the)\b", re.I),
}


def asked(question: str) -> Kind | None:
    """The kind of fact the question asks for, if its wording says."""
    for kind, pattern in _ASKED:
        if pattern.search(question):
            return kind
    return None


def states(kind: Kind, sentence: str) -> bool:
    return bool(_STATES[kind].search(sentence))


# "Can we outsource …?", "May a firm rely on …?", "Are we allowed to delay …?": whether the
# rules let one do a thing is answered where they say "may <that act>" (or "may not", "must
# not", "is permitted to"), not where the act is merely mentioned.
_ASKS_LEAVE = re.compile(
    r"\b(?:can|may|could)\s+(?:(?:a|an|the|our|any|one)\s+[\w-]+|we|i|you|they|one)\s+"
    r"(?:still\s+|also\s+|ever\s+|just\s+)?(?P<verb>[a-z]{2,})\b|"
    r"\b(?:allowed|permitted|able)\s+to\s+(?P<verb2>[a-z]{3,})\b", re.I)
_NOT_ACTS = frozenset(("be", "do", "have", "get", "use", "make", "take", "still", "also", "just",
                       "not"))
STEM = 5  # letters of the asked act compared ("outsource" / "outsourcing")


def asked_act(question: str) -> str | None:
    """The act a question asks leave for, as a stem ("outso" for "Can we outsource …?")."""
    found = _ASKS_LEAVE.search(question)
    if not found:
        return None
    verb = (found["verb"] or found["verb2"] or "").lower()
    return verb[:STEM] if verb and verb not in _NOT_ACTS else None


def grants(act: str, sentence: str) -> bool:
    """Whether the sentence gives or withholds leave for the act ("may outsource the role",
    "may not rely", "must not outsource", "is permitted to outsource")."""
    return bool(re.search(
        r"\b(?:may|can|must not|shall not|is permitted to|are permitted to|is entitled to|"
        rf"are entitled to)\s+(?:not\s+|only\s+|also\s+)?(?:\w+\s+){{0,2}}?{re.escape(act)}",
        sentence, re.I))
