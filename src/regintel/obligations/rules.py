"""Rule numbers for every offset of a page: the clause markers ingestion finds (``4.1.1``,
``4.1.1.(5)``, ``Article 33``) composed with the paragraph and item labels that follow them on
their own lines (``(6)``, ``(b)``, ``1.``), so an obligation is cited as people cite it:
``4.1.1.(6)`` for the paragraph "(6)" after clause ``4.1.1.(5)``, ``4.1.1.(6)(b)`` for its item
(b), ``Article 33(1)`` for the first numbered paragraph of an article. A label continues its
own kind at its level (a digit after a digit, a letter after a letter, a roman numeral after a
roman numeral) and opens a deeper level otherwise."""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from regintel.ingestion.clauses import find_clauses

_SUB = re.compile(r"^[ \t]{0,3}(?:\((?P<br>[0-9]{1,3}|[a-z]{1,4}|[A-Z])\)|(?P<num>\d{1,3})\.)"
                  r"(?=[ \t])", re.MULTILINE)
_TRAILING = re.compile(r"(?:\.?\((?:[0-9]{1,3}|[a-z]{1,4}|[A-Z])\))+$")
_PART = re.compile(r"\(([0-9]{1,3}|[a-z]{1,4}|[A-Z])\)")
_ROMAN = re.compile(r"^(?:i{1,3}|iv|vi{0,3}|ix|xi{0,3}|x)$")


def _kind(label: str, previous: str | None) -> str:
    if label.isdigit():
        return "digit"
    if label.isupper():
        return "upper"
    # "i", "v", "x" are letters after "h", "u", "w"; roman numerals otherwise.
    if _ROMAN.match(label) and not (previous is not None and len(previous) == 1
                                     and len(label) == 1 and ord(label) - ord(previous) == 1):
        return "roman"
    return "letter"


@dataclass
class _Number:
    base: str
    parts: list[tuple[str, str]]  # (kind, label) of each bracketed level

    def text(self) -> str:
        return self.base + "".join(f"({label})" for _, label in self.parts)

    def add(self, label: str) -> None:
        previous = self.parts[-1][1] if self.parts else None
        kind = _kind(label, previous)
        for level, (existing, _) in enumerate(self.parts):
            if existing == kind:
                del self.parts[level:]
                break
        self.parts.append((kind, label))


class RuleNumbers:
    """The rule number in effect at each offset of one page's text; ``carry`` is the last
    number of the previous page (a rule runs on across a page break)."""

    def __init__(self, text: str, carry: str | None = None) -> None:
        marks: list[tuple[int, str | None, str | None]] = [
            (offset, label, None) for offset, label in find_clauses(text)]
        taken = {offset for offset, _, _ in marks}
        for m in _SUB.finditer(text):
            if m.start() not in taken and m.start() + len(m[0]) - len(m[0].lstrip()) not in taken:
                marks.append((m.start(), None, m["br"] or m["num"]))
        marks.sort(key=lambda mark: mark[0])
        self._offsets: list[int] = []
        self._numbers: list[str | None] = []
        number = _parse(carry) if carry else None
        for offset, clause, sub in marks:
            if clause is not None:
                if clause.isdigit() and number is not None and not number.base[:1].isdigit():
                    number.add(clause)  # "1." under "Article 33": a paragraph of the article
                else:
                    number = _parse(clause)
            elif number is not None and sub is not None:
                number.add(sub)
            self._offsets.append(offset)
            self._numbers.append(number.text() if number else None)
        self._carry = carry

    def at(self, offset: int) -> str | None:
        index = bisect_right(self._offsets, offset) - 1
        return self._numbers[index] if index >= 0 else self._carry

    @property
    def last(self) -> str | None:
        return self._numbers[-1] if self._numbers else self._carry


def _parse(label: str) -> _Number:
    trailing = _TRAILING.search(label)
    if trailing is None:
        return _Number(label, [])
    dot = "." if trailing[0].startswith(".") else ""
    number = _Number(label[:trailing.start()] + dot, [])
    for part in _PART.findall(trailing[0]):
        number.add(part)
    return number
