"""Recognizers for identifiers whose shape a single regular expression cannot settle.

IBAN: printed in groups of four, the groups are indistinguishable from the words around them
("… 1332 FROM …") and a bank code may be letters only ("GB82 WEST …"). Every way of ending the
run of groups is tried, longest first, and the ISO 13616 mod-97 check picks the IBAN: it is
found whole, with a score of 1.0, so the phone and card recognizers, which match its digit
groups, lose the overlap in ``PiiDetector.find``.

Keyed identifiers (passport numbers): a 6-12 character number is everywhere in regulatory text,
so it counts only straight after the document's name and a label ("passport no. 123456789",
"Reisepass-Nr. C01X00T47"). Formats differ by country, so the value is checked for shape
(letters and digits, at least two digits, not a year or a clause number), not for a format."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from presidio_analyzer import LocalRecognizer, RecognizerResult

_FLAGS = re.IGNORECASE | re.MULTILINE


def iban_ok(text: str) -> bool:
    """ISO 13616: country letters, two check digits, 11-30 characters, mod 97 == 1."""
    compact = re.sub(r"[\s-]", "", text).upper()
    if not 15 <= len(compact) <= 34 or not compact[:2].isalpha() or not compact[2:4].isdigit():
        return False
    if not compact.isalnum() or not compact.isascii():
        return False
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(c, 36)) for c in rearranged)) % 97 == 1


class SpanRecognizer(LocalRecognizer):
    """A recognizer given by a function from text to ``(start, end, score)`` spans."""

    def __init__(self, entity: str, spans: Callable[[str], Iterator[tuple[int, int, float]]],
                 *, name: str) -> None:
        super().__init__(supported_entities=[entity], name=name, supported_language="en")
        self._spans = spans
        self._name = name  # Presidio's own attribute is untyped

    def load(self) -> None:
        """Nothing to load: the patterns are compiled at import."""

    def analyze(self, text: str, entities: list[str],
                nlp_artifacts: Any = None) -> list[RecognizerResult]:
        meta = {RecognizerResult.RECOGNIZER_NAME_KEY: self._name,
                RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: self.id}
        return [RecognizerResult(self.supported_entities[0], start, end, score,
                                 recognition_metadata=dict(meta))
                for start, end, score in self._spans(text)]


# The start of an IBAN: country code and check digits, not inside a longer word.
_IBAN_HEAD = re.compile(r"(?<![\w-])[a-z]{2}\d{2}", _FLAGS)
_IBAN_COMPACT = re.compile(r"[a-z0-9]{11,30}(?!\w)", _FLAGS)
# One printed group: a space (or NBSP, or a hyphen) and four characters; the last may be short.
_IBAN_GROUP = re.compile(r"[ \u00a0-]([a-z0-9]{4})(?!\w)", _FLAGS)
_IBAN_LAST = re.compile(r"[ \u00a0-]([a-z0-9]{1,3})(?!\w)", _FLAGS)


def iban_spans(text: str) -> Iterator[tuple[int, int, float]]:
    pos = 0
    while head := _IBAN_HEAD.search(text, pos):
        end = _iban_end(text, head.start(), head.end())
        if end is None:
            pos = head.end()
            continue
        yield head.start(), end, 1.0
        pos = end


def _iban_end(text: str, start: int, after_head: int) -> int | None:
    """Where the valid IBAN starting at ``start`` ends, or None."""
    compact = _IBAN_COMPACT.match(text, after_head)
    if compact and iban_ok(text[start:compact.end()]):
        return compact.end()
    ends: list[int] = []
    pos = after_head
    while len(ends) < 8 and (group := _IBAN_GROUP.match(text, pos)):
        pos = group.end()
        ends.append(pos)
    if last := _IBAN_LAST.match(text, pos):
        ends.append(last.end())
    # Longest first: a following word of four letters or digits is tried, fails the checksum
    # (96 times in 97) and is dropped.
    return next((end for end in reversed(ends) if iban_ok(text[start:end])), None)


# What may sit between a document's name and its number: "no.", "number", "Nr.", "nº", "#",
# "ID", then "is", ":", "=" — each optional.
_LABEL = r"(?:[\s-]*(?:(?:no|nr|num|number|id|ident|code)\b|n°|nº|#)\.?)?"
_LINK = r"(?:\s*(?:is|was|reads|:|=|-|–))*"
# One run of 6-12 letters and digits, or a short prefix and digit groups ("N 1234567",
# "45 07 123456"); never followed by more of a clause number, date or word.
_VALUE = (r"(?P<value>[a-z0-9]{6,12}|(?:[a-z]{1,3}|\d{2,4})(?:[ -]\d{2,8}){1,2})"
          r"(?![\w/])(?!-\w)(?![.,:]\d)")
_YEARS = re.compile(r"(?:19|20)\d{2}(?:[ -](?:19|20)?\d{2})?")


def keyed_spans(names: Sequence[str], score: float
                ) -> Callable[[str], Iterator[tuple[int, int, float]]]:
    """Spans of the values written straight after one of ``names`` (and a label)."""
    words = "|".join(re.escape(n) for n in names)
    pattern = re.compile(rf"\b(?:{words})(?:['’]s)?(?:\s+(?:document|serial|book))?{_LABEL}"
                         rf"{_LINK}\s*[(\[]?\s*{_VALUE}", _FLAGS)

    def spans(text: str) -> Iterator[tuple[int, int, float]]:
        for match in pattern.finditer(text):
            value = match.group("value")
            digits = sum(c.isdigit() for c in value)
            length = sum(c.isalnum() for c in value)
            if digits >= 2 and length >= 6 and not _YEARS.fullmatch(value):
                yield match.start("value"), match.end("value"), score
    return spans


# The word for passport in the languages a client's documents are most often in.
PASSPORT_WORDS = ("passport", "passports", "passeport", "pasaporte", "passaporto", "reisepass",
                  "paspoort", "passaporte")


def iban() -> SpanRecognizer:
    return SpanRecognizer("IBAN_CODE", iban_spans, name="regintel_iban_code")


def passport() -> SpanRecognizer:
    return SpanRecognizer("PASSPORT", keyed_spans(PASSPORT_WORDS, 0.85),
                          name="regintel_passport")
