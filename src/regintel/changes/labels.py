"""Paragraph markers and how they nest: "(a)", "(1)", "(i)", "(A)", "(I)", "1.", "a)".

Plain text loses the indentation and italics a printed regulation uses to show depth, so the
depth of a marker is inferred from the sequence, as a reader does: "(b)" after "(a)(2)" goes
back up to the level of "(a)"; "(1)" after "(a)" opens a level below it. "(i)" is both the
ninth letter and the first roman numeral: it continues "(h)" or opens a level below, and the
marker after it ("(ii)" or "(j)") decides. Only the generic drafting forms are known here,
never one regulation's numbering."""

from __future__ import annotations

import re
from dataclasses import dataclass

# Kinds in the order drafting conventionally nests them: (a) → (1) → (i) → (A) → (I).
LOWER, DIGIT, ROMAN, UPPER, UROMAN = "lower", "digit", "roman", "upper", "uroman"
_CHILD_OF = {None: LOWER, LOWER: DIGIT, DIGIT: ROMAN, ROMAN: UPPER, UPPER: UROMAN,
             UROMAN: DIGIT}
_ROMAN = re.compile(r"m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})\Z")
_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
# "(a)", "(iv)", "(12)", "(d)-(e)" (a range of reserved paragraphs), "a)", "1." — a line's own
# marker, then its text (or nothing: "(b)" alone opens a list with no words of its own).
MARKER = re.compile(
    r"^(?P<marker>\((?P<b>[A-Za-z]{1,5}|\d{1,3})\)(?:\s*[-–—]\s*\((?P<b2>[A-Za-z]{1,5}|\d{1,3})\))?"
    r"|(?P<p>[a-z]|\d{1,3})\)(?=\s)|(?P<d>\d{1,3})\.(?=\s))(?:\s+|$|(?=\[))")


def roman_value(token: str) -> int | None:
    token = token.lower()
    if not token or not _ROMAN.match(token):
        return None
    total = 0
    for char, following in zip(token, [*token[1:], ""], strict=True):
        value = _ROMAN_VALUES[char]
        total += -value if following and _ROMAN_VALUES[following] > value else value
    return total


def _letter_value(token: str) -> int | None:
    """a=1 … z=26, then aa=27, bb=28 (a doubled letter continues the alphabet)."""
    if len(set(token)) != 1 or not token.isalpha():
        return None
    return (ord(token[0].lower()) - 96) + 26 * (len(token) - 1)


@dataclass(frozen=True)
class Reading:
    """One way to read a marker: its kind and its ordinal in that kind."""

    kind: str
    ordinal: int


def readings(token: str) -> list[Reading]:
    """Every reading of a marker's inner token, most usual first ("ii" is roman before it is
    the 35th letter)."""
    if token.isdigit():
        return [Reading(DIGIT, int(token))]
    found: list[Reading] = []
    roman = roman_value(token)
    letter = _letter_value(token)
    lower = token.islower()
    if roman is not None and len(token) > 1:
        found.append(Reading(ROMAN if lower else UROMAN, roman))
    if letter is not None:
        found.append(Reading(LOWER if lower else UPPER, letter))
    if roman is not None and len(token) == 1:
        found.append(Reading(ROMAN if lower else UROMAN, roman))
    return found


@dataclass(frozen=True)
class Level:
    kind: str
    ordinal: int
    marker: str


def _successor_at(stack: list[Level], reading: Reading, exact: bool) -> int | None:
    for depth in range(len(stack) - 1, -1, -1):
        level = stack[depth]
        if level.kind == reading.kind and (
                reading.ordinal == level.ordinal + 1 if exact else reading.ordinal > level.ordinal):
            return depth
    return None


def _opens_below(stack: list[Level], reading: Reading) -> bool:
    return reading.ordinal == 1 and all(level.kind != reading.kind for level in stack)


@dataclass(frozen=True)
class Placement:
    depth: int  # how many levels above it: 0 is directly under the section (or its anchor)
    level: Level
    score: int  # 3 successor, 2 opens a level (conventional), 1 opens a level, 0 a guess


def place(stack: list[Level], token: str, marker: str) -> list[Placement]:
    """The ways a marker can continue ``stack``, best first."""
    options: list[Placement] = []
    top_kind = stack[-1].kind if stack else None
    for reading in readings(token):
        level = Level(reading.kind, reading.ordinal, marker)
        depth = _successor_at(stack, reading, exact=True)
        if depth is not None:
            options.append(Placement(depth, level, 3))
        if _opens_below(stack, reading):
            conventional = _CHILD_OF.get(top_kind) == reading.kind
            options.append(Placement(len(stack), level, 2 if conventional else 1))
        gap = _successor_at(stack, reading, exact=False)
        if gap is not None and depth is None:
            options.append(Placement(gap, level, 0))
    # A conventional new level beats continuing a list several levels up ("(i)" under "(3)" of
    # "(h)"); a successor at the innermost level beats an unconventional new level.
    options.sort(key=lambda p: (p.score if p.score != 3 or p.depth == len(stack) - 1
                                else 1.5, -abs(p.depth - len(stack))), reverse=True)
    return options


def fits(stack: list[Level], token: str) -> Placement | None:
    """The best placement that is a real continuation (a successor or a new first level)."""
    for option in place(stack, token, token):
        if option.score >= 1:
            return option
    return None


def choose(stack: list[Level], token: str, marker: str, following: str | None,
           last: str | None = None) -> Placement:
    """Where the marker goes, the next marker (``following``) breaking ties: "(i)" is a
    roman numeral when "(ii)" follows, the ninth letter when "(j)" does. A range ("(c)-(d)")
    is placed by its first marker and continued from its ``last``."""
    placed = _choose(stack, token, marker, following if last is None else None)
    if last is not None:
        end = next((r for r in readings(last) if r.kind == placed.level.kind), None)
        if end is not None:
            placed = Placement(placed.depth, Level(end.kind, end.ordinal, marker), placed.score)
    return placed


def _choose(stack: list[Level], token: str, marker: str, following: str | None) -> Placement:
    options = place(stack, token, marker)
    if not options:  # no reading continues the stack: a level of its own, below the last
        kinds = readings(token) or [Reading(LOWER, 0)]
        return Placement(len(stack), Level(kinds[0].kind, kinds[0].ordinal, marker), 0)
    if following is not None and len(options) > 1:
        for option in options:
            after = fits([*stack[:option.depth], option.level], following)
            if after is not None and after.score >= 2:
                return option
    return options[0]
