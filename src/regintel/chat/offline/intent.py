"""Offline intent: which of the four actions a message asks for, from the verbs a compliance
officer uses. Inquire is the default: answering a question never needs a specific document."""

from __future__ import annotations

import re

from regintel.chat.engine import IntentGuess
from regintel.domain.chat import Action

_RULES: tuple[tuple[Action, re.Pattern[str]], ...] = (
    (Action.AUDIT, re.compile(
        r"\b(audit\w*|compl(?:y|ies|iant|iance)\s+(?:with|against)|check\w*\s+.{0,60}\bagainst|"
        r"gap analysis|gaps?\s+(?:in|against|between)|violat\w*|breach\w*\s+of)\b", re.I)),
    (Action.COMPARE, re.compile(
        r"\b(compar\w*|contrast\w*|differences?|differ\w*|versus|vs\.?|diff\b|"
        r"how (?:does|do) .{0,80} (?:differ|change)|what changed|changes? between)\b", re.I)),
    (Action.SUMMARIZE, re.compile(
        r"\b(summar\w*|overview|key (?:points|takeaways|obligations)|tl;?dr|gist|outline|"
        r"brief me|digest)\b", re.I)),
)


def classify(message: str) -> IntentGuess:
    """The first rule that fires wins, in the order audit → compare → summarize (an audit
    request often also says "compare", a comparison rarely says "audit")."""
    for action, pattern in _RULES:
        found = pattern.search(message)
        if found:
            return IntentGuess(action=action, confident=True,
                               reason=f"'{found.group(0).strip()}' asks to {action.value}")
    return IntentGuess(action=Action.INQUIRE, confident=False,
                       reason="no action verb: answering the question")
