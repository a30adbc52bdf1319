"""Offline intent: which of the four actions a message asks for, from the verbs a compliance
officer uses. Inquire is the default: answering a question never needs a specific document.

Two kinds of cue. A *request* names the action and what it applies to ("summarise the Market
Rules", "audit our policy", "check this email against …"): the action is certain. A *topic
word* only suggests one: "comply", "compliance", "breach", "difference", "key obligations"
appear in almost every question a compliance officer asks ("How does a firm comply with the
reporting rule?"), so they choose the action only when the user gave it something to act on
(tagged documents, pasted text) — ``chat.nodes.resolve`` decides that; the guess here is then
not confident."""

from __future__ import annotations

import re

from regintel.chat.engine import IntentGuess
from regintel.domain.chat import Action

# What an audit may be applied to: the user's own text or document, named as such.
_OWN = (r"(?:this|these|that|our|my|the (?:attached|following|below|above|enclosed|pasted)|"
        r"the draft)")
_ARTEFACT = (r"(?:polic(?:y|ies)|e-?mails?|drafts?|texts?|procedures?|clauses?|documents?|"
             r"messages?|letters?|memos?|contracts?|notes?|wording|plan|process|controls?|"
             r"framework|manual|standard|paragraph|section)")
_REQUESTS: tuple[tuple[Action, re.Pattern[str]], ...] = (
    (Action.AUDIT, re.compile(
        rf"^\W*(?:please\s+)?(?:can you\s+|could you\s+)?audit\b|"
        rf"\b(?:audit|review|check|assess|test|screen)\w*\s+{_OWN}\b|"
        rf"\bgap analysis (?:of|on|for)\s+{_OWN}|"
        rf"\b(?:is|are|does|do|would|will|could)\s+{_OWN}\s+(?:\w+\s+){{0,4}}{_ARTEFACT}\b"
        rf".{{0,80}}\b(?:compl\w*|breach\w*|violat\w*|meet|satisf\w*|conform\w*|consistent|"
        rf"in line|okay|ok|fine|acceptable|allowed|permitted)\b|"
        rf"\bcheck\w*\s+.{{0,60}}\bagainst\b", re.I)),
    (Action.COMPARE, re.compile(
        r"\b(?:compar\w*|contrast\w*|diff\b|what changed|changes? between|"
        r"how (?:does|do) .{0,80} (?:differ|change))", re.I)),
    (Action.SUMMARIZE, re.compile(
        r"\b(?:summar\w*|tl;?dr|brief me|digest|overview of (?:the|this|that|these|@))", re.I)),
)
_TOPICS: tuple[tuple[Action, re.Pattern[str]], ...] = (
    (Action.AUDIT, re.compile(
        r"\b(?:audit\w*|compl(?:y|ies|iant|iance)\s+(?:with|against)|gap analysis|"
        r"gaps?\s+(?:in|against|between)|violat\w*|breach\w*\s+of)\b", re.I)),
    (Action.COMPARE, re.compile(r"\b(?:differences?|differ\w*|versus|vs\.?)(?!\w)", re.I)),
    (Action.SUMMARIZE, re.compile(
        r"\b(?:overview|key (?:points|takeaways|obligations)|gist|outline)\b", re.I)),
)


def classify(message: str) -> IntentGuess:
    """A request wins, in the order audit → compare → summarize (an audit request often also
    says "compare", a comparison rarely says "audit"); else a topic word, not confident."""
    for action, pattern in _REQUESTS:
        found = pattern.search(message)
        if found:
            return IntentGuess(action=action, confident=True,
                               reason=f"'{found.group(0).strip()}' asks to {action.value}")
    for action, pattern in _TOPICS:
        found = pattern.search(message)
        if found:
            return IntentGuess(action=action, confident=False,
                               reason=f"'{found.group(0).strip()}' may ask to {action.value}")
    return IntentGuess(action=Action.INQUIRE, confident=False,
                       reason="no action verb: answering the question")
