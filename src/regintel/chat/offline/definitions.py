"""A term the rules define that a policy narrows. A rule may say what a word covers: "a
'business partner' includes: … a member of the Relevant Person's Group"; "“control” means a
power … to: … direct, withhold consent to or veto the exercise of a power". A policy that
says some of it is not what the word names ("Members of the Shearwater Group are not business
partners for the purposes of this section"; "A protector … whose only power is to direct the
trustees … is not treated as having control of the trust") takes them out of every duty the
rule attaches to the word. The definition is no duty itself (obligations.defines_a_term):
it is read for this alone. facets.read records both sides; conflicts.comparable ties them."""

from __future__ import annotations

import re

from regintel.chat.offline.lexical import terms

_DEFINES = re.compile(r"[‘'“\"](?P<term>[A-Za-z][A-Za-z -]{2,40})[’'”\"]\s+(?:includes|means)\b")
_NOT_COUNTED = re.compile(
    r"\b(?:is|are)\s+not\s+(?:(?:treated|regarded|considered|counted|classed|classified)\s+"
    r"as\s+)?(?:a\s+|an\s+|having\s+)?[a-z][\w -]{2,40}?\s+(?:for\s+the\s+purposes?\s+"
    r"of|of\s+the|under|in\s+this)\b|"
    r"\b(?:is|are)\s+not\s+(?:treated|regarded|considered|counted|classed|classified)\s+as\s+"
    r"(?:a\s+|an\s+|having\s+)?[a-z][\w -]{2,40}?(?=\s+(?:and|because|but|so)\b|"
    r"[.,;]|$)", re.I)


def defined(text: str) -> str | None:
    """The term a rule defines ("business partner", "control"), if it defines one."""
    m = _DEFINES.search(text)
    return m["term"].strip() if m else None


def not_counted(text: str) -> str | None:
    """The words by which a policy says something is not what a term names ("are not
    business partners for the purposes of", "is not treated as having control"), if it does."""
    m = _NOT_COUNTED.search(text)
    return m[0] if m else None


def narrows(term: str, phrase: str) -> bool:
    """Whether a policy's "is not …" phrase is about the rule's defined term: every word of
    the term is in it."""
    wanted = set(terms(term))
    return bool(wanted) and wanted <= set(terms(phrase))
