"""A follow-up whose answer would only repeat the previous one: every statement it would make
was already made. Saying so is the answer ("and who has to approve it?" when the documents
found name no approver): the same provisions shown again without a word would read as though
they answered the new question."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

NOTHING_MORE = ("The passages found for this add nothing to the previous answer; it rests on "
                "these provisions:")

STEM = 5  # letters compared: "approve" / "approval", "resident" / "residency"
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]{2,}")
# Words that carry no subject: what a follow-up asks with, not what it asks about.
_FUNCTION_WORDS_TEXT = (
    "and but also what which who whom whose when where why how does did do has have had must "
    "shall should can could may might will would that this these those they them their there "
    "then than the for with from into about does any anyone someone person people thing "
    "things need needs needed required require requires have has are was were been being "
    "its it's our ours your yours you not nor yes tell say said")
_FUNCTION_WORDS = frozenset(_FUNCTION_WORDS_TEXT.split())
_MARKERS = re.compile(r"\s*\[\d{1,3}\]")
# How a statement line opens: a bullet, or the lead's "Under <document>, <clause>: ".
_OPENING = re.compile(r"^\s*(?:- |Under )?")


def last_answer(memory: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """The thread's last answer as memory holds it (its content and metadata), if any."""
    recent = (memory or {}).get("recent") or []
    return next((m for m in reversed(recent) if m.get("role") == "assistant"), None)


def previous_answer(memory: Mapping[str, Any] | None) -> str | None:
    """The text of the thread's last answer, when memory holds one."""
    answer = last_answer(memory)
    return None if answer is None else str(answer.get("content") or "")


def all_said(answer: str, previous: str) -> bool:
    """Whether every cited statement of ``answer`` is in ``previous`` (whatever the words
    naming its document: an answer may shorten a title the previous one gave in full)."""
    said = _plain(previous)
    statements = [line for line in answer.splitlines() if _MARKERS.search(line)]
    return bool(statements) and all(_in(line, said) for line in statements)


def addresses(answer: str, follow_up: str, earlier: str) -> bool:
    """Whether ``answer`` speaks to what the follow-up adds to the questions before it: one of
    its own words ("live", "UAE" in "does that person have to live in the UAE?" after "Who
    has to be appointed as the officer?") is in the answer, by its stem. A repeat that holds the new
    point is an answer, not a repeat."""
    before = {_stem(w) for w in _WORD.findall(earlier)}
    new = {_stem(w) for w in _WORD.findall(follow_up) if w.lower() not in _FUNCTION_WORDS} \
        - before
    said = {_stem(w) for w in _WORD.findall(answer)}
    return bool(new & said)


def _stem(word: str) -> str:
    return word.lower()[:STEM]


def _in(line: str, said: str) -> bool:
    text = _plain(_OPENING.sub("", line, count=1))
    quoted = text.split(": ", 1)[1] if ": " in text else text
    return bool(quoted) and (text in said or quoted in said)


def _plain(text: str) -> str:
    return " ".join(_MARKERS.sub("", text).removesuffix("…").split())
