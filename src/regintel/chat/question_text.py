"""The question as the search and the answer read it. A follow-up ("and who has to approve the
relationship?", "what about for trusts?") says little on its own: it is read with the thread's
earlier questions before it, so it stays on their subject. Abbreviations are spelled out
beside the words the user wrote ("SLA" with "service level agreement"), since the
regulation rarely uses the practitioner's shorthand. Both readings are general: they look at
the shape of the question, not at any regulation's words. (The abbreviations are spelled out where
the search and the answer are made: ``chat.prefetch``, ``chat.nodes.actions``.)"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from regintel.chat.named_documents import document_noun_at

# A question that leans on the one before: it opens as a continuation, or it points back
# ("it", "they", "that") without naming its subject again.
_CONTINUES = re.compile(
    r"^\W*(?:and|but|also|so|then|or|plus|for|what about|how about|what if|same for|and what|"
    r"and how|and who|and when|and where|and if|and can|and do|and does|and is|and are)\b",
    re.I)
_POINTS_BACK = re.compile(
    r"\b(?:it|its|they|them|their|this|that|these|those|he|she|him|her|the same|such|"
    r"the relationship|the customer|the firm|the person|the request|the report|the case)\b",
    re.I)
FOLLOW_UP_MAX_WORDS = 14  # longer questions carry their own subject
BARE_MAX_WORDS = 4  # "for how long?", "who approves?": too short to carry a subject
EARLIER_QUESTIONS = 2  # how far back a chain of follow-ups is read


def is_follow_up(question: str) -> bool:
    words = question.split()
    if not words or len(words) > FOLLOW_UP_MAX_WORDS:
        return False
    return len(words) <= BARE_MAX_WORDS or bool(_CONTINUES.search(question)) or \
        bool(_POINTS_BACK.search(_without_documents_pointed_at(question)))


def _without_documents_pointed_at(question: str) -> str:
    """``question`` less "these rules", "this rulebook", "those documents": they point back at
    documents (the resolver takes them), not at the subject — "what do these rules say about
    training?" asks about training. "That rule" is a provision of the answer before: its
    subject."""
    for m in reversed(list(re.finditer(r"\b(?:this|these|that|those)\b", question, re.I))):
        if document_noun_at(question, m.end()) and \
                not re.match(r"\s+rule\b", question[m.end():], re.I):
            question = question[:m.start()] + question[m.end():]
    return question


def earlier_questions(memory: Mapping[str, Any] | None) -> list[str]:
    """The thread's user messages before this turn, oldest first."""
    recent: Sequence[Mapping[str, Any]] = (memory or {}).get("recent") or []
    return [str(m.get("content") or "") for m in recent if m.get("role") == "user"]


def in_context(question: str, earlier: Sequence[str]) -> str:
    """``question`` after the earlier questions it follows on from (the latest first back,
    as long as each is itself a follow-up, at most ``EARLIER_QUESTIONS``); else itself."""
    if not is_follow_up(question):
        return question
    chain: list[str] = []
    for previous in reversed(earlier):
        if not previous.strip():
            continue
        chain.insert(0, previous.strip())
        if len(chain) >= EARLIER_QUESTIONS or not is_follow_up(previous):
            break
    return " ".join([*chain, question]) if chain else question


MENTION = re.compile(r"@\[([^\]]*)\]")


def without_mentions(question: str) -> str:
    """The question without its @mentions ("@[Market Rules] What must …" → "What must …"): a
    mention tags its document, which narrows the search; its title's words must not also be
    searched for, or the document's glossary ("Market Return means …", "Market Rulebook means …")
    outranks what the question asks. A question that is only mentions keeps their names."""
    text = " ".join(MENTION.sub(" ", question).split())
    return text or " ".join(MENTION.sub(r"\1", question).split())
