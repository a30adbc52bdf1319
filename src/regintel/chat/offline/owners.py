"""A duty the rules give one holder that a policy gives a function of its own. The AML
Rulebook has the MLRO "responsible for … establishing and maintaining an appropriate money
laundering training programme"; a policy in which "The People and Culture Department owns
the financial crime training programme and is responsible for establishing and maintaining
it" gives the duty to someone else without saying that it moves it (roles.moved_from reads a
policy that says so). facets.read records the policy's side; conflicts.comparable checks that
the two name one act and that the policy's owner is not the rule's holder."""

from __future__ import annotations

import re

from regintel.chat.offline import roles
from regintel.chat.offline.lexical import terms

# A function of the firm, by its capitalised name: "The People and Culture Department",
# "the Head of Claims", "Group Internal Audit Team".
_NAME = r"(?:(?:[A-Z][\w&-]*|and|of)\s+){0,5}"
_FUNCTION = (rf"{_NAME}(?:Department|Team|Function|Committee|Unit|Desk|Office|Officer|Counsel|"
             r"Director|Manager|Head(?:\s+of\s+[A-Z][\w&-]*(?:\s+[A-Z][\w&-]*)*)?)")
_OWNED = re.compile(
    rf"\b(?P<who>{_FUNCTION})\b[^.;]{{0,40}}?\b(?:owns|is\s+responsible\s+for|has\s+(?:sole\s+)?"
    r"responsibility\s+for|is\s+accountable\s+for)\s+(?P<what>[^.;]{5,160})")
# The AML function itself: its owning a duty moves it nowhere (the MLRO heads compliance);
# nor does a holder's (roles.holder: "the Management Committee" is a Governing Body).
_AML_OWNER = re.compile(r"\b(?:MLRO|Money\s+Laundering\s+Reporting\s+Officer|Compliance|"
                        r"Financial\s+Crime)\b", re.I)
# Words any duty's wording shares with any other ("responsible for the … of …").
_COMMON = frozenset(terms("responsible responsibility ensure appropriate adequate relevant "
                          "person matters following money laundering associated"))
MIN_SHARED = 2  # content words of the duty both name


def owned_by(text: str) -> tuple[frozenset[str], str] | None:
    """What a function other than the AML function or a rule's holder is said to own, as
    stems, and the words that say it ("The People and Culture Department owns the financial
    crime training programme …"); None when the text gives no such function a duty."""
    for m in _OWNED.finditer(text):
        if not _AML_OWNER.search(m["who"]) and roles.holder(m["who"]) is None:
            return frozenset(terms(m["what"])) - _COMMON, m[0].strip()
    return None


def same_duty(rule_text: str, holds: str, owned: frozenset[str]) -> bool:
    """Whether the rule's duty (its text without the words naming its holder) is what the
    policy's function owns: at least MIN_SHARED of their content words in common."""
    duty = set(terms(rule_text)) - set(terms(holds)) - _COMMON
    return len(duty & owned) >= MIN_SHARED
