"""Word-level redline of two texts, and whether what changed is only editorial.

Editorial is decided on the texts alone, most specific first: spacing (the same characters
once whitespace is set aside), punctuation, capitalisation, or a cross-reference renumbered
(every changed word is a provision number: "§ 478.11", "(b)(2)", "paragraph (c)", "Part
479"). Anything else changes what the provision says and is substantive."""

from __future__ import annotations

import re
import unicodedata
from difflib import SequenceMatcher
from typing import Literal

from pydantic import BaseModel, ConfigDict

Editorial = Literal["spacing", "punctuation", "capitalisation", "cross-reference"]

_TOKEN = re.compile(r"\s+|\w+|[^\w\s]")
_PUNCT = re.compile(r"[\W_]+")  # an underscore run is a blank to fill in, not a word
# A provision number as drafting writes it, standing alone or after a word that names one.
_REFERENCE = re.compile(
    r"§+|\d+(?:\.\d+)+[a-z]?(?:\([A-Za-z0-9]{1,5}\))*|\d+[a-z]?(?:\([A-Za-z0-9]{1,5}\))+|"
    r"(?:\([A-Za-z0-9]{1,5}\))+")
_NAMES_A_PROVISION = re.compile(
    r"(?:§+|sections?|secs?\.?|parts?|subparts?|articles?|arts?\.?|rules?|paragraphs?|"
    r"paras?\.?|subparagraphs?|clauses?|chapters?|subchapters?|schedules?|annex(?:es)?|"
    r"appendix|appendices|titles?|regulations?)$", re.IGNORECASE)
_BETWEEN = re.compile(r"(?:and|or|through|to|,)$", re.IGNORECASE)
_BARE = re.compile(r"\d+[A-Za-z]?|[A-Za-z]")


class RedlineOp(BaseModel):
    model_config = ConfigDict(frozen=True)

    op: Literal["equal", "delete", "insert"]
    text: str


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(_fold(text))


def redline_ops(old: str, new: str) -> list[RedlineOp]:
    """The word-level edit from ``old`` to ``new``; equal runs kept whole."""
    a, b = tokens(old), tokens(new)
    ops: list[RedlineOp] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            ops.append(RedlineOp(op="equal", text="".join(a[i1:i2])))
            continue
        if i2 > i1:
            ops.append(RedlineOp(op="delete", text="".join(a[i1:i2])))
        if j2 > j1:
            ops.append(RedlineOp(op="insert", text="".join(b[j1:j2])))
    return ops


def redline_text(ops: list[RedlineOp]) -> str:
    """``[-deleted-]{+inserted+}`` inline, as wdiff prints it."""
    marks = {"equal": "{}", "delete": "[-{}-]", "insert": "{{+{}+}}"}
    return "".join(marks[op.op].format(op.text) for op in ops)


def _no_space(text: str) -> str:
    return re.sub(r"\s+", "", _fold(text))


def _no_punct(text: str) -> str:
    return _PUNCT.sub("", _fold(text))


def _is_reference(words: list[str], at: int, token: str) -> bool:
    """A provision number: one by its form ("478.11", "(b)(2)"), or a bare number after a
    word that names a provision, possibly through a list ("sections 5 and 6")."""
    if _REFERENCE.fullmatch(token):
        return True
    if not _BARE.fullmatch(token):
        return False
    for before in reversed(words[:at]):
        if _NAMES_A_PROVISION.match(before):
            return True
        if not (_BETWEEN.match(before) or _REFERENCE.fullmatch(before) or
                _BARE.fullmatch(before)):
            return False
    return False


def _reference_only(old: str, new: str) -> bool:
    """Every word that changed is a provision number (a cross-reference renumbered)."""
    a = [w for w in re.split(r"\s+", _fold(old)) if w]
    b = [w for w in re.split(r"\s+", _fold(new)) if w]
    a = [w.strip(",;:.") or w for w in a]
    b = [w.strip(",;:.") or w for w in b]
    changed = False
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if tag != "replace":
            return False
        changed = True
        if not all(_is_reference(a, i1 + k, w) for k, w in enumerate(a[i1:i2])) or \
                not all(_is_reference(b, j1 + k, w) for k, w in enumerate(b[j1:j2])):
            return False
    return changed


def editorial_kind(old: str, new: str) -> Editorial | None:
    """Why the change from ``old`` to ``new`` is editorial, or None when it is substantive
    (or when there is no change at all)."""
    if _fold(old) == _fold(new):
        return None
    if _no_space(old) == _no_space(new):
        return "spacing"
    if _no_punct(old) == _no_punct(new):
        return "punctuation"
    if _no_punct(old).lower() == _no_punct(new).lower():
        return "capitalisation"
    if _reference_only(old, new):
        return "cross-reference"
    return None
