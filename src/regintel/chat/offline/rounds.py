"""A duty on an event that a policy puts off to its next round. The AML Rulebook has some
duties done when something happens: the customer risk assessment "must be completed: …
whenever it is otherwise appropriate for existing customers, including where the Relevant
Person becomes aware of any change to the risk factors"; a policy that leaves the event to
the next scheduled review ("the rating is reassessed at the customer's next scheduled
periodic review"; "the relationship may continue until the next annual review") does it
late, however often its reviews come round. (A duty to act promptly against a policy that
only names a cycle is the "cycle" kind: conflicts._prompt_only.)"""

from __future__ import annotations

import re

from regintel.chat.offline.refusals import refused_in_clause

_WORDS = r"(?:\s+[^\s.;:]+){0,10}"  # what the event is, in its first few words
_ON_EVENT = re.compile(
    rf"\bwhenever\b{_WORDS}|\b(?:where|when|if|once)\s+(?:the\s+Relevant\s+Person|it)\s+"
    rf"becomes\s+aware\b{_WORDS}|\b(?:upon|on)\s+becoming\s+aware\b{_WORDS}", re.I)
_NEXT_ROUND = re.compile(
    r"\b(?:at|until|in|during|to)\s+(?:the\s+)?(?:\w+'s\s+|its\s+|their\s+|our\s+)?next\s+"
    r"(?:(?:scheduled|periodic|regular|annual|yearly|routine)\s+){0,2}(?:review|refresh|"
    r"re-?assessment|cycle)\b", re.I)


def on_event(text: str) -> str | None:
    """The words by which a rule has something done when an event happens ("whenever it is
    otherwise appropriate …, including where the Relevant Person becomes aware …"); None
    when it sets no such time. (A duty to act promptly is read as a deadline: a policy that
    puts an urgent report off to a review is about another act far more often than not.)"""
    m = _ON_EVENT.search(text)
    return m[0].strip() if m else None


def deferred(text: str) -> str | None:
    """The words by which a policy leaves something to its next round ("at the customer's
    next scheduled periodic review"); None when it does not, or refuses to wait ("does not
    wait for the next review")."""
    m = _NEXT_ROUND.search(text)
    if m is None:
        return None
    return None if refused_in_clause(text, m.start()) else m[0]
