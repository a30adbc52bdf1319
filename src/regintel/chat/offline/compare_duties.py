"""What a provision requires, as a comparison can set it beside another's: how binding it is,
whom it binds, and the act it requires ("must clearly disclose the general nature … of
conflicts of interest to the Client"). Two provisions are common ground on a duty only when
they require the same act, as binding, of the same kind of party - not because both say
"must" about different things."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from regintel.chat.offline.ranking import Sentence, figures
from regintel.domain.documents import DocType
from regintel.obligations.extract import actor_of, find_modal, strength_of
from regintel.obligations.lexical import content_words

# How binding a statement is, as the obligation register reads its modal: "may arise" or "may
# be kept" bind no one, so they are not set against another document's "must".
_FORCE = {"mandatory": "must", "prohibition": "must not", "restriction": "may only",
          "recommendation": "should"}
# The share of the shorter act's content words the other act uses, at least, for the two
# to be one act: "keep records of the training" and "keep records of each training given"
# are; "keep records of the assessment" and "keep copies of due diligence documents" are not.
SAME_ACT = 0.6
SAID_WORDS = 20
_NUMBERING = re.compile(r"^[\d.()A-Za-z]{0,12}\d[\d.()]*\s+")
# Words between the modal and the verb ("must, where relevant, maintain", "must clearly
# disclose", "shall not").
_ASIDE = re.compile(r"^\s*,[^,]{0,80},\s*")
_BEFORE_VERB = re.compile(r"^(?:not|also|only|at all times|promptly|clearly|always|"
                          r"\w+ly)\s+", re.I)
# Where the act ends: a clause's end, or a list's first item.
_ACT_END = re.compile(r"[;:.](?:\s|$)|\s\((?:[a-z]{1,3}|\d{1,2})\)\s|\s[-–]\s")
# English verbs whose past participle the crude stemmer does not bring back to the verb.
_IRREGULAR = {"kept": "keep", "made": "make", "given": "give", "held": "hold", "taken": "take",
              "sent": "send", "paid": "pay", "done": "do", "told": "tell", "set": "set",
              "put": "put", "met": "meet", "brought": "bring", "sought": "seek",
              "written": "write", "shown": "show", "known": "know", "borne": "bear",
              "found": "find", "laid": "lay", "left": "leave", "chosen": "choose"}


def modal(text: str) -> str | None:
    found = find_modal(text)
    return _FORCE[strength_of(found[0])] if found else None


@dataclass(frozen=True)
class Duty:
    force: str              # "must", "should", "must not", "may only"
    party: str | None       # whom it binds, as named; None in the passive
    verb: str               # the act's verb, stemmed ("keep", "disclos")
    object: frozenset[str]  # the act's other content words, figures left out
    act: str                # the act as written ("acknowledge every complaint in writing")
    said: str               # the duty in the provision's words ("an Authorised Person must …")


def duty_of(text: str) -> Duty | None:
    """The duty a statement lays down, when it has a modal of obligation and an act after it."""
    text = _NUMBERING.sub("", " ".join(text.split()))
    found = find_modal(text)
    if found is None:
        return None
    subject = actor_of(text, found.start()) or ""
    act = _ASIDE.sub(" ", text[found.end():])
    act = act[:m.start()] if (m := _ACT_END.search(act)) else act
    words = act.split()
    while words and _BEFORE_VERB.match(f"{words[0]} "):
        words = words[1:]
    passive = bool(words) and words[0].lower() == "be"
    if passive:
        words = words[1:]
    if not words:
        return None
    verb = _verb(words[0])
    rest = " ".join(words[1:])
    for figure in figures(rest):
        rest = re.sub(re.escape(figure), " ", rest, flags=re.I)
    what = content_words(rest) | (content_words(subject) if passive else frozenset())
    stated = f"{subject} {found[0]} {' '.join(act.split())}".split()
    shown = " ".join(stated[:SAID_WORDS])
    if len(stated) > SAID_WORDS:  # cut at a word that ends a phrase, and say so
        shown = re.sub(r"(?:\s+(?:a|an|and|as|at|by|for|from|in|of|on|or|the|to|with|"
                       r"before|after|that|which))+$", "", shown, flags=re.I) + " …"
    first, _, tail = shown.partition(" ")
    said = f"{first.lower()} {tail}" if first.lower() in ("a", "an", "the", "each", "every",
                                                         "any", "these", "such") else shown
    return Duty(force=_FORCE[strength_of(found[0])], party=None if passive else subject or None,
                verb=verb, object=what - {verb}, act=" ".join(words), said=said.rstrip(" ,;:"))


def same_duty(found: Sequence[Sentence]) -> str | None:
    """"both say an Authorised Person must clearly disclose …", when every statement lays
    down the same act, as binding, on the same kind of party; else None."""
    duties = [duty_of(s.in_context) for s in found]
    if len(duties) < 2 or any(d is None for d in duties):
        return None
    known = [d for d in duties if d is not None]
    if len({d.force for d in known}) > 1 or len({d.verb for d in known}) > 1:
        return None
    if not _same_party(known, found):
        return None
    objects = [d.object for d in known]
    if any(objects) and not all(objects):
        return None
    for other in objects[1:]:
        shorter = min(len(objects[0]), len(other))
        if shorter and len(objects[0] & other) < SAME_ACT * shorter:
            return None
    return f"both say {known[0].said}"


def _same_party(duties: Sequence[Duty], found: Sequence[Sentence]) -> bool:
    """Both name the same person, or neither names one (both in the passive). A firm's own
    document names itself ("the Firm") where a regulation names whom it binds: the same
    kind of party."""
    named = [d.party for d in duties]
    if not any(named):
        return True
    if not all(named):
        return False
    if any(s.hit.doc_type is not DocType.REGULATION for s in found):
        return True
    return len({content_words(n or "") for n in named}) == 1


def _verb(word: str) -> str:
    lowered = word.lower().strip(",.;:")
    lowered = _IRREGULAR.get(lowered, lowered)
    stems = content_words(lowered)
    # "disclose" and "disclosed" as one verb: the stemmer keeps the first's final "e".
    return (next(iter(stems)) if stems else lowered).rstrip("e")
