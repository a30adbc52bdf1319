"""How a text deals with customers, their money and its own reach, read on the rule's side
and on the policy's: a risk factor weighed ("must take into account all relevant risk
factors") or set aside ("is not treated as a risk factor"); something a duty excludes ("other
than a post office box") or a policy accepts ("accepted as the residential address");
linked operations counted as one or one by one ("are not added together"); money given back
("return any monies") or kept ("not refundable"); an account for someone whose identity is
kept from the firm, forbidden or accepted; and all of a firm's activities reached, or some
put outside a policy's scope. facets.read records them; conflicts.comparable sets a rule's
against a policy's."""

from __future__ import annotations

import re

from regintel.chat.offline.acts import WORD, Phrase
from regintel.chat.offline.lexical import terms
from regintel.chat.offline.refusals import refused

# A rule that has a risk weighed: "must take into account all relevant risk factors …,
# including …", "must treat … as high risk", "When undertaking a risk-based assessment of a
# customer …, a Relevant Person must identify, assess and consider: …".
_WEIGHS = re.compile(r"\b(?:take|takes|taking)\s+into\s+account\b[^.;]{0,80}?\brisk factors?\b|"
                     r"\btreat\w*\b[^.;]{0,60}?\bas\s+(?:a\s+)?high(?:er)?[- ]risk\b|"
                     r"\brisk-based\s+assessment\b(?:[^.;]|\.(?=\d)){0,120}?\b(?:consider|take\s+"
                     r"into\s+account)\b", re.I)  # (the dots of "7.1.1(1)(a)" end no sentence)
# A policy that sets it aside: "is not treated as a risk factor", "are not regarded as
# higher risk", "does not in itself affect the risk rating", or leaves it out of its
# scoring ("nationality and country of origin are not scored").
_DISMISSES = re.compile(
    r"\b(?:is|are)\s+not\s+(?:scored|weighted)\b(?!\s+as\b)|"
    r"\b(?:is|are)\s+not\s+(?:\w+\s+)?(?:treated|regarded|considered|taken into account|"
    r"viewed|counted|scored)\s+as\s+(?:a\s+|an\s+)?(?:risk factor|(?:high|higher|increased|"
    r"elevated)[- ]risk|risk indicator)\w*|\b(?:does|do)\s+not\s+(?:in itself\s+)?(?:increase|"
    r"raise|affect|change)\s+(?:the\s+|a\s+)?(?:\w+'s\s+)?risk (?:rating|score)", re.I)
weighs_risk = Phrase(_WEIGHS)
dismisses_risk = Phrase(_DISMISSES)


# What a rule's duty excludes: "verify the current residential address (other than a post
# office box)". Not an exclusion of whom the rule speaks to ("A Relevant Person, other than a
# Representative Office, must …"), which precedes the rule's verb.
_EXCLUDES = re.compile(rf"\bother than\s+(?:a|an|the)\s+((?:{WORD}\s+){{0,3}}{WORD})"
                       r"(?=\s*[.;,)]|\s*$)(?![^.;]{0,3}\b(?:must|shall)\b)", re.I)
# A policy that accepts something: "is recorded and accepted as", "are acceptable", "is
# sufficient", "may be used as"; not "is not accepted".
_ACCEPTS = re.compile(r"\b(?:is|are|will be|may be|can be)\s+(?!not\b)(?:\w+\s+(?:and\s+)?)?"
                      r"(?:accepted|acceptable|sufficient|used as)\b|\baccepts?\b", re.I)
accepts = Phrase(_ACCEPTS)


def excluded(text: str) -> tuple[frozenset[str], str] | None:
    """What a duty excludes (the stems of it) and the phrase, if the text has one."""
    m = _EXCLUDES.search(text)
    return (frozenset(terms(m[1])), m[0]) if m else None


# A rule that counts linked operations as one: "whether or not the Transaction is executed in
# a single operation or in several operations that are or appear to be linked", "whether in a
# single cash payment or multiple cash payments".
_LINKS = re.compile(
    r"\b(?:several|multiple|a series of)\s+(?:\w+\s+){0,2}?(?:operations|transactions|"
    r"payments)\b[^.;]{0,30}?\blinked\b|\bsingle\s+(?:\w+\s+){0,2}?(?:operation|transaction|"
    r"payment)\s+or\s+(?:in\s+)?(?:several|multiple)\s+(?:\w+\s+){0,2}?(?:operations|"
    r"transactions|payments)(?:\s+that\s+(?:are|appear)[^.;]{0,25}?\blinked)?\b|"
    r"\blinked\s+(?:operations|transactions|payments)\b", re.I)
# A policy that counts them one by one: "are not added together", "is measured against each
# invoice separately", "are not aggregated"; not "linked payments are added together".
_SPLITS = re.compile(
    r"\b(?:is|are)\s+not\s+(?:\w+\s+)?(?:added\s+(?:up|together)|aggregated|combined|"
    r"totall?ed|linked|treated\s+as\s+(?:one|a\s+single))\b|"
    r"\b(?:measured|assessed|applied|counted|calculated|considered|checked|tested)\s+"
    r"(?:against|on|for|per)\s+(?:each|every)\s+\w+(?:\s+\w+)?\s+(?:separately|"
    r"individually|on its own)\b", re.I)
links = Phrase(_LINKS)
splits = Phrase(_SPLITS)


# A rule that has money given back: "return any monies or assets received from the customer",
# "return to the customer any monies" (not "not return any monies", a prohibition).
_RETURNS = re.compile(r"(?<!not )\breturn\w*\s+(?:to\s+the\s+\w+\s+)?(?:any|all|the)\s+"
                      r"(?:monies|money|funds|assets)\b", re.I)
# A policy that keeps it: "are not refundable", "keeps the deposit", "forfeits the funds".
_KEEPS = re.compile(
    r"\b(?:not|non)[- ]refundable\b|\b(?:is|are)\s+(?:not\s+(?:be\s+)?(?:refunded|returned)|"
    r"forfeited)\b|\bwill\s+not\s+(?:be\s+)?(?:refund|return)\w*\b|"
    r"\b(?:keeps?|retains?|withholds?|forfeits?)\s+(?:the\s+|any\s+|all\s+|such\s+)?"
    r"(?:\w+'s\s+)?(?:deposits?|funds|monies|money|payments?)\b", re.I)
returns = Phrase(_RETURNS)
# Money held because of a suspicion is what a rule asks for ("not return any monies … unless
# instructed to do so by the MLRO" once a report is made): "the Firm retains the funds
# pending the FIU's instructions" keeps nothing from the customer wrongly.
_ON_SUSPICION = re.compile(r"\b(?:reports?|reported|SARs?|STRs?|suspicio\w*|suspect\w*|FIU|"
                           r"frozen|freez\w*|pending|instruct\w*)\b", re.I)


_kept = Phrase(_KEEPS)


def keeps(text: str) -> str | None:
    """The phrase by which ``text`` keeps a customer's money, unless it holds it because of
    a suspicion."""
    return None if _ON_SUSPICION.search(text) else _kept(text)


# An account for someone whose identity is kept from the firm. A rule forbids it: "a nominee
# account which is held in the name of one Person but which is controlled by or held for the
# benefit of another Person whose true identity has not been disclosed". A policy accepts it:
# "may register the nominee as the investor without being told the identity of the underlying
# investor", "reserve a property in its own name for a principal who prefers to stay
# unnamed". Not where the policy refuses it ("we never act for an undisclosed principal").
_UNDISCLOSED = re.compile(r"\bwhose\s+(?:true\s+)?identity\s+has\s+not\s+been\s+disclosed\b",
                          re.I)
_UNNAMED = re.compile(
    r"\bwithout\s+(?:being\s+told|knowing|learning|being\s+given|asking\s+for)\s+(?:the\s+|"
    r"their\s+|its\s+)?(?:identity|identities|name)\b|\b(?:prefers?|wish(?:es)?|wants?|asks?)"
    r"\s+to\s+(?:stay|remain|be\s+kept)\s+(?:unnamed|anonymous|undisclosed)\b|"
    r"\bundisclosed\s+(?:principal|beneficiar\w*|investor|owner|client)s?\b", re.I)
undisclosed = Phrase(_UNDISCLOSED)


def accepts_unnamed(text: str) -> str | None:
    """The phrase by which ``text`` accepts a beneficiary the firm is not told of, unless
    it refuses it."""
    m = _UNNAMED.search(text)
    return None if m is None or refused(text, 0, m.start()) else m[0]


# What the rules apply to, and what a policy leaves out of its own reach. The AML Rulebook
# applies "to every Relevant Person in respect of all its activities carried out in or from
# the ADGM"; a policy that puts some of them "outside the scope of this Policy" ("Activities
# that staff carry out outside the ADGM, such as overseas roadshows, fall outside the scope of
# this Policy") leaves them without the controls the rules require.
_ALL_ACTIVITIES = re.compile(r"\bin\s+respect\s+of\s+all\s+(?:of\s+)?its\s+activities\b", re.I)
_CARVES_OUT = re.compile(
    r"\b(?:falls?|are|is|lies?|lie)\s+outside\s+the\s+scope\s+of\s+this\s+(?:Policy|Manual)\b|"
    r"\bthis\s+(?:Policy|Manual)\s+does\s+not\s+(?:apply\s+to|cover)\b|"
    r"\b(?:is|are)\s+(?:not\s+covered\s+by|excluded\s+from)\s+(?:the\s+scope\s+of\s+)?this\s+"
    r"(?:Policy|Manual)\b", re.I)
all_activities = Phrase(_ALL_ACTIVITIES)
carves_out = Phrase(_CARVES_OUT)
