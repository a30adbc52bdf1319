"""What a text says about acts rather than quantities: when an act must happen relative to
the start of a business relationship ("prior to establishing a business relationship" /
"within ten days after the account has been opened"), a new product's launch, a provider's
appointment or a payout; which acts it forbids ("must not charge B a fee", "does not enter
into, or continue, a … relationship"), which it allows ("the desk may execute the order"),
and what it lets staff put in place of a required measure ("may apply standard CDD instead
of Enhanced CDD"). Who answers for a duty is read in roles.py, how a text deals with
customers and their money in dealings.py. facets.read records them; conflicts compares
them."""

from __future__ import annotations

import re
from itertools import pairwise

from regintel.chat.offline.lexical import stem, terms

WORD = r"[\w'’-]+"
_WINDOW = rf"((?:{WORD}[,\s]+){{0,7}}{WORD})"  # the next few words
_BEFORE = re.compile(r"\b(?:prior to|before)\s+" + _WINDOW, re.I)
_AFTER = re.compile(r"\b(?:after|following|once)\s+" + _WINDOW, re.I)
# The start of a relationship, however a policy words it: "establishing a business
# relationship", "the account has been opened", "begins dealing with them".
_START_VERB = re.compile(r"\b(?:establish|open|begin|began|begun|start|commenc|enter|onboard)",
                         re.I)
_START_NOUN = re.compile(r"\b(?:business relationships?|relationships?|accounts?|dealing|"
                         r"trading)\b", re.I)
# A list's lead-in ends in a colon: "A Relevant Person must not: (a) establish …".
_FORBIDS = re.compile(r"\b(?:must not|shall not|may not|does not|do not|will not|is not "
                      r"permitted to|are not permitted to|(?:is|are) prohibited from):?\s+"
                      rf"((?:{WORD}[,\s]+){{0,6}}{WORD})", re.I)
_ALLOWS = re.compile(r"\bmay\s+(?:(?:still|nevertheless|then|also|nonetheless)\s+)?"
                     r"([a-z]+)\b(?!\s+not)", re.I)
# What keeps a clause from affirming the act: a negation, or a condition ("only after the
# Committee approves", "only if").
_NEGATION = re.compile(r"\b(?:not|never|no|neither|nor|prohibit\w*|refus\w*|without|only)\b",
                       re.I)
# A verb in a time or condition clause is not the act done: "Before establishing a business
# relationship, the Firm verifies …" does not establish one with a Shell Bank.
_CIRCUMSTANCE = frozenset({"before", "after", "when", "whenever", "upon", "on", "while",
                           "until", "once", "if", "unless", "prior"})
_TIMING = re.compile(r"\b(?:until|before|prior to|pending)\b", re.I)
_SUBSTITUTE = re.compile(r"\bmay\b[^.;]{0,80}?\b(?:instead of|rather than|in place of|waive|"
                         r"dispense with|disapply|forgo|omit|skip)\s+"
                         rf"((?:{WORD}\s+){{0,2}}{WORD})", re.I)
# Verbs that name one act: a desk "executes" or "processes" what a rule says a firm must not
# "carry out".
_SAME_ACT = {"execut": "carr", "effect": "carr", "process": "carr", "proce": "carr",
             "perform": "carr", "carry": "carr", "carri": "carr",
             # Displaying a logo or a name is a use of it ("must not use … the logo").
             "displa": "use", "display": "use"}


# The other start a rule puts a duty before: a new product, service or technology going
# live ("prior to launching any new product, service, or business practice, or using a new
# or developing technology"), which a policy may put after ("a post implementation review
# within three months of go live").
_LAUNCH_VERB = re.compile(r"\b(?:launch|introduc|implement|roll|deploy|adopt|us(?:e|ing)\b|"
                          r"go(?:es|ing)?[- ]live)", re.I)
_LAUNCH_NOUN = re.compile(r"\b(?:products?|services?|technolog(?:y|ies)|practices?|"
                          r"platforms?|channels?|systems?)\b", re.I)
_AFTER_LAUNCH = re.compile(r"\bpost[- ](?:implementation|launch|go[- ]live)\b|\b(?:of|after|"
                           r"following)\s+(?:the\s+|its\s+)?(?:go[- ]live|launch|roll[- ]out)\b",
                           re.I)
# The third: a provider appointed to do part of the firm's work ("prior to appointing a
# service provider to undertake CDD, … an initial assurance assessment"), which a policy may
# put after ("within six months after the provider goes live").
_APPOINT_VERB = re.compile(r"\b(?:appoint|engag|outsourc|onboard|contract|go(?:es|ing)?[- ]"
                           r"live)", re.I)
_APPOINT_NOUN = re.compile(r"\b(?:providers?|third[- ]part(?:y|ies)|vendors?|suppliers?|"
                           r"outsourc\w*)\b", re.I)
# The fourth: an insurer's payout ("verify the identity of beneficiaries … before it makes a
# payout under the policy"), which a policy may put after ("complete verification … within
# 30 days after settlement").
_PAYOUT = re.compile(r"\b(?:pay-?outs?|settlement|(?:make|makes|making|release|releases|"
                     r"releasing)\s+(?:a\s+|the\s+|any\s+)?payments?|paying\s+out)\b", re.I)
RELATIONSHIP, LAUNCH, APPOINTMENT, PAYOUT = "relationship", "launch", "appointment", "payout"


class Phrase:
    """A kind of phrase a text may say ("remains responsible", "is not treated as a risk
    factor"): called on a text, the first such phrase in it, or None."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern

    def __call__(self, text: str) -> str | None:
        m = self.pattern.search(text)
        return m[0] if m else None


def _start(window: str) -> str | None:
    """Which start ``window`` names, if any."""
    if _PAYOUT.search(window):
        return PAYOUT
    if _START_VERB.search(window) and _START_NOUN.search(window):
        return RELATIONSHIP
    # Before a launch: "a service provider" names a provider, not a new service.
    if _APPOINT_VERB.search(window) and _APPOINT_NOUN.search(window):
        return APPOINTMENT
    if _LAUNCH_VERB.search(window) and _LAUNCH_NOUN.search(window):
        return LAUNCH
    return None


def before_start(text: str) -> str | None:
    """The phrase requiring something before a relationship starts or a new product goes
    live, if the text has one (starts_at says which)."""
    return next((m[0] for m in _BEFORE.finditer(text) if _start(m[1])), None)


def after_start(text: str) -> str | None:
    """The phrase putting something after a relationship has started or a new product has
    gone live, if the text has one."""
    found = next((m for m in _AFTER.finditer(text) if _start(m[1])), None)
    if found is None:
        found = _AFTER_LAUNCH.search(text)
    return found[0] if found else None


def starts_at(phrase: str) -> str:
    """The start a before/after phrase is relative to: a relationship, or a launch."""
    if _AFTER_LAUNCH.fullmatch(phrase):
        return LAUNCH
    return _start(phrase) or RELATIONSHIP


def act(word: str) -> str:
    """A verb as the act it names (stemmed, with synonyms folded together)."""
    s = stem(word)
    return _SAME_ACT.get(s, s)


_ADVERB = re.compile(r"\w{3,}(?<!p)(?<!re)ly", re.I)


def forbidden(text: str) -> tuple[tuple[str, frozenset[str], str], ...]:
    """The acts ``text`` forbids: (act, the stems of what it is done to, the phrase)."""
    found = []
    for m in _FORBIDS.finditer(text):
        words = re.findall(WORD, m[1])
        # "must not knowingly establish …": the act is the verb after the adverb (not
        # "apply", "comply", "rely", which are acts).
        while words and _ADVERB.fullmatch(words[0]):
            words = words[1:]
        if not words:
            continue
        verbs = [words[0]] + [b for a, b in pairwise(words)
                              if a.lower() in ("or", "nor")]
        objects = terms(" ".join(w for w in words[1:] if w not in verbs))
        found += [(act(v), frozenset(objects), m[0].rstrip(", ")) for v in verbs]
    return tuple(found)


def allowed(text: str) -> tuple[tuple[str, str], ...]:
    """The acts ``text`` allows with a bare "may": (act, the phrase)."""
    return tuple((act(m[1]), m[0]) for m in _ALLOWS.finditer(text))


OBJECT_WORDS = 8  # after a verb, the words its object is among


def does(text: str, verb: str, objects: frozenset[str]) -> str | None:
    """The word with which ``text`` affirms doing the forbidden act to its object
    ("charging the requesting firm an administration fee"), if it does, with no negation
    anywhere in it. The object is looked for in the words after the verb: "Compliance
    establishes and verifies each partner's identity before the relationship begins" does not
    establish a relationship."""
    if _NEGATION.search(text) or not objects.intersection(terms(text)):
        return None
    words = re.findall(WORD, text)
    return next((w for k, w in enumerate(words) if act(w) == verb and
                 not {x.lower() for x in words[max(0, k - 2):k]} & _CIRCUMSTANCE and
                 objects.intersection(terms(" ".join(words[k + 1:k + 1 + OBJECT_WORDS])))),
                None)



# Going ahead, whatever the act: "the Matter may proceed", "the relationship may continue".
GO_AHEAD = frozenset({act("proceed"), act("continue"), act("go")})
# A rule that forbids acting when something cannot be done ("if … prevents the Relevant
# Person from identifying", "where … is unable to complete CDD"); a policy that goes ahead
# when it cannot ("one or more Controllers cannot be identified").
_UNABLE = re.compile(r"\b(?:prevents?|prevented|unable|is not able|are not able|cannot|"
                     r"can ?not|could not|not possible|fails? to|impossible)\b", re.I)


def unable(text: str) -> bool:
    """Whether ``text`` speaks of something that cannot be done."""
    return bool(_UNABLE.search(text))


def timed(text: str) -> bool:
    """Whether ``text`` speaks of an act's timing ("until", "before", "pending")."""
    return bool(_TIMING.search(text))


def substitute(text: str) -> tuple[frozenset[str], str] | None:
    """What a "may … instead of X" (or "may waive X") lets staff replace or drop: the stems
    of X, and the phrase."""
    m = _SUBSTITUTE.search(text)
    if m is None:
        return None
    return frozenset(terms(m[1])), m[0]
