"""What a text says about acts rather than quantities: when an act must happen relative to
the start of a business relationship ("prior to establishing a business relationship" /
"within ten days after the account has been opened"), a new product's launch or a
provider's appointment, which acts it forbids ("must not
charge B a fee", "does not enter into, or continue, a … relationship"), which it allows
("the desk may execute the order"), what it lets staff put in place of a required
measure ("may apply standard CDD instead of Enhanced CDD"), who answers for a task
("remains responsible" / "responsibility rests with the Provider"), and whether a risk the
rule has weighed is set aside ("is not treated as a risk factor"), and what a rule excludes
that a policy accepts ("other than a post office box" / "P.O. Box … accepted as the
residential address"), and a report a rule sends straight to the MLRO that a policy has
someone else decide on ("must first raise it with his or her head of desk, who decides
whether the matter is passed to" the officer). facets.read records them; facets compares
them."""

from __future__ import annotations

import re
from itertools import pairwise

from regintel.chat.offline.lexical import stem, terms
from regintel.chat.offline.refusals import refused

_WORD = r"[\w'’-]+"
_WINDOW = rf"((?:{_WORD}[,\s]+){{0,7}}{_WORD})"  # the next few words
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
                      rf"((?:{_WORD}[,\s]+){{0,6}}{_WORD})", re.I)
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
                         rf"((?:{_WORD}\s+){{0,2}}{_WORD})", re.I)
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
        words = re.findall(_WORD, m[1])
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
    words = re.findall(_WORD, text)
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


# A firm that outsources or relies on others keeps the responsibility: "remains responsible
# for compliance with", "remains liable", "retains ultimate responsibility".
_RETAINS = re.compile(
    r"\b(?:remains?|continues? to be|stays?)\s+(?:fully\s+|ultimately\s+|solely\s+)?"
    r"(?:responsible|liable|accountable)\b|\bretains?\s+(?:full\s+|ultimate\s+|overall\s+)?"
    r"(?:responsibility|liability|accountability)\b", re.I)
# Who is outside the firm: a policy that passes responsibility to its MLRO or its Board
# allocates it; one that passes it to a provider, an introducer or an agent gives it away.
_OUTSIDE = (r"(?:(?:third|external|outsourc\w*|service|other)[\s-]+\w+|\w*\s*(?:provider|"
            r"introducer|agent|vendor|intermediary|contractor|supplier|partner|affiliate)s?)")
_SHIFTS = re.compile(
    r"\b(?:responsibility|liability|accountability)\b[^.;]{0,100}?\b(?:rests?|lies|lie|"
    r"pass(?:es)?|(?:is|are) (?:transferred|passed)|transfers?|shifts?|moves?|sits?)\s+"
    rf"(?:with|to|on)\s+(?:the\s+|that\s+|its\s+)?{_OUTSIDE}\b|"
    rf"\b(?:is|are|becomes?)\s+(?:the\s+)?(?:sole\s+)?responsibility\s+of\s+(?:the\s+)?"
    rf"{_OUTSIDE}\b|\b(?:is|are)\s+(?:not|no longer)\s+(?:responsible|liable|accountable)"
    r"\b", re.I)
retains = Phrase(_RETAINS)
shifts = Phrase(_SHIFTS)


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
_EXCLUDES = re.compile(rf"\bother than\s+(?:a|an|the)\s+((?:{_WORD}\s+){{0,3}}{_WORD})"
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


# A rule that has a report reach the MLRO: "that Employee promptly notifies the Relevant
# Person's MLRO".
_TO_MLRO = re.compile(r"\b(?:notif\w*|report\w*|inform\w*|disclos\w*)\b[^.;]{0,60}?"
                      r"\b(?:MLRO|Money Laundering Reporting Officer)\b", re.I)
# A policy that puts someone's decision in the way: "who decides whether the matter is passed
# to the Financial Crime Officer", "only if the line manager agrees". Not the MLRO's own
# decision on what comes next ("refer the case to the MLRO, who decides whether a suspicion
# report is needed"): the decision must be on passing the matter to someone.
_FILTERS = re.compile(
    r"\b(?:who|which)\s+(?:then\s+)?(?:decides?|determines?|judges?|considers?)\s+"
    r"(?:whether|if)\b[^.;]{0,80}?\b(?:pass|refer|escalat|report|forward|sen[dt])\w*\s+"
    r"(?:on\s+)?to\b|"
    r"\bonly\s+(?:if|where|when)\s+(?:the|his|her|their)\s+(?:line\s+)?(?:manager|head|"
    r"supervisor)\w*(?:\s+of\s+\w+)?\s+(?:agrees?|approves?|considers?|decides?)", re.I)
reports_to_mlro = Phrase(_TO_MLRO)


# A report sent to someone else, with no reporting officer named anywhere on its way:
# "Staff should report suspicious transactions to their line manager at the end of each
# month". (Consulting a line manager first is allowed, so long as the report still reaches
# the MLRO: AML 14.2.3 Guidance 5.)
_ELSEWHERE = re.compile(r"\b(?:report|rais|refer|escalat|notif|pass)\w*\b[^.;]{0,60}?\b"
                        r"(?:to|with)\s+(?:their|his|her|his or her|the|a|an)\s+"
                        r"(?:line\s+)?(?:manager|supervisor|head of (?:desk|department|team|"
                        r"business)|team leader|desk head)\b", re.I)
_OFFICER = re.compile(r"\b(?:MLRO|Money Laundering Reporting Officer|(?:financial crime|"
                      r"compliance|reporting|AML) officer|FCO|Head of (?:Financial Crime|"
                      r"Compliance))\b", re.I)


def filters(text: str) -> str | None:
    """The phrase by which a policy has someone decide whether a report goes on, or sends
    it to someone other than a reporting officer, if any."""
    m = _FILTERS.search(text)
    if m is None and not _OFFICER.search(text):
        m = _ELSEWHERE.search(text)
    return m[0] if m else None


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


# A rule that gives the AML function the information: "have full access to information about
# the account", "timely and unrestricted access to information"; or the people who govern
# the firm: "direct access to the Governing Body and its Senior Management" (read against a
# policy's limit on the same: see ``to_governors``).
_GOVERNORS = r"(?:the\s+|its\s+)?(?:Governing\s+Body|Board(?:\s+of\s+Directors)?|" \
             r"Senior\s+Management)"
_FULL_ACCESS = re.compile(r"\b(?:full|unrestricted|direct|complete)\s+access\s+to\s+"
                          r"(?:[\w-]+\s+){0,3}?(?:information|records|files|data|documents)\b|"
                          rf"\bdirect\s+access\s+to\s+{_GOVERNORS}\b", re.I)
# A policy that keeps it from them: the MLRO, compliance or audit see it "only" in part, or
# have no access; or what identifies the customer is "held by … alone". Not a limit on who
# else may see it ("STR files are accessible only to the MLRO").
_AML_STAFF = r"(?:MLRO|compliance|analysts?|reviewers?|auditors?|audit\s+function)"
_LIMITS_ACCESS = re.compile(
    rf"\b{_AML_STAFF}\b[^.;]{{0,80}}?\b(?:sees?|views?|accesses|receives?)\b[^.;]{{0,80}}?"
    rf"\bonly\b|\b{_AML_STAFF}\b[^.;]{{0,40}}?\b(?:has|have|is given|are given)\s+no\s+access\b|"
    # ... or only when someone else agrees: "the MLRO may consult them with the agreement of
    # the Head of Private Office".
    rf"\b{_AML_STAFF}\b[^.;]{{0,40}}?\bmay\s+(?:consult|see|view|access|review|inspect|"
    r"obtain)\b[^.;]{0,60}?\b(?:with|after|subject\s+to|upon|on)\s+(?:the\s+)?(?:prior\s+)?"
    r"(?:agreement|approval|consent|permission|authori[sz]ation)\s+of\b|"
    # ... or grants the access only on someone's approval: "Access by the MLRO to transaction
    # documents on a live matter is granted with the approval of the Supervising Partner".
    rf"\baccess\s+(?:by|for)\s+(?:the\s+|our\s+)?{_AML_STAFF}\b[^.;]{{0,80}}?\b(?:is|are)\s+"
    r"(?:only\s+)?(?:granted|given|allowed|permitted|provided)\s+(?:only\s+)?(?:with|after|"
    r"subject\s+to|upon|on)\s+(?:the\s+)?(?:prior\s+)?(?:agreement|approval|consent|"
    r"permission|authori[sz]ation)\s+of\b|"
    r"\bheld\s+by\s+(?:the\s+)?[\w\s]{0,40}?\balone\b|"
    # ... or keeps the MLRO from the Board: "does not have a direct line to the Board".
    rf"\b(?:does\s+not\s+have|do\s+not\s+have|has\s+no|have\s+no|without)\s+(?:a\s+|any\s+)?"
    rf"direct\s+(?:line|access|reporting\s+line|route)\s+to\s+{_GOVERNORS}\b", re.I)
full_access = Phrase(_FULL_ACCESS)
limits_access = Phrase(_LIMITS_ACCESS)
_TO_GOVERNORS = re.compile(rf"\bto\s+{_GOVERNORS}\b", re.I)


def to_governors(phrase: str | None) -> bool:
    """Whether an access phrase is to the people who govern the firm, not to information."""
    return bool(phrase and _TO_GOVERNORS.search(phrase))


# Who a duty belongs to inside the firm. A rule names its holder: "A Relevant Person's
# Governing Body is responsible for establishing …", "A Relevant Person's Governing Body must
# ensure the policies … are effective", "must ensure that its MLRO implements and
# has oversight of and is responsible for the following matters:", "Responsibility for … lies
# with every member of the Governing Body". A policy may move the duty to someone else: "The
# Board has delegated to the Managing Director the establishment …", "are answered by the
# Managing Director rather than the MLRO", "is delegated by the Management Committee to the
# MLRO", "the MLRO supports the General Counsel in that role". A delegation that keeps the
# holder answerable ("… but remains responsible") moves nothing (see ``moved_from``).
# A partnership's or an LLP's governing body is its Management Committee.
_HOLDERS = {"governing body": "Governing Body", "board": "Governing Body",
            "board of directors": "Governing Body", "management committee": "Governing Body",
            "senior management": "Senior Management", "mlro": "MLRO",
            "money laundering reporting officer": "MLRO"}
_HOLDER = r"(Governing\s+Body|Board(?:\s+of\s+Directors)?|Management\s+Committee|Senior\s+" \
          r"Management|MLRO|Money\s+Laundering\s+Reporting\s+Officer)"
_HOLDS = re.compile(
    rf"\b{_HOLDER}\b[^.;:]{{0,60}}?\b(?:is|are)\s+(?:\w+\s+)?responsible\s+for\b|"
    rf"\b{_HOLDER}\s+(?:and\s+(?:its\s+)?deputy\s+MLRO\s+)?must\b|"
    rf"\bresponsibility\b[^.;]{{0,80}}?\blies\s+with\b[^.;]{{0,30}}?\b{_HOLDER}\b", re.I)
_MOVES = re.compile(
    rf"\b{_HOLDER}\s+(?:has|have)\s+delegated\b|"
    rf"\b(?:is|are)\s+delegated\s+by\s+(?:the\s+|its\s+|our\s+)?{_HOLDER}\b|"
    rf"\b{_HOLDER}\s+(?:only\s+)?(?:supports|assists)\s+(?:the\s+|our\s+)?[A-Z][\w-]*"
    r"(?:\s+[A-Z][\w-]*)*\s+in\s+(?:that|this|the)\s+(?:role|task|function)\b|"
    rf"\b(?:rather\s+than|instead\s+of)\s+(?:by\s+|to\s+|with\s+)?(?:the\s+|its\s+|our\s+)?"
    rf"{_HOLDER}\b", re.I)


def holder(phrase: str | None) -> str | None:
    """The holder a ``holds`` or ``moved_from`` phrase names, as one name for its synonyms
    ("the Board" and "the Governing Body" are one holder)."""
    m = _HOLDER_NAME.search(phrase or "")
    return _HOLDERS[" ".join(m[1].lower().split())] if m else None


_HOLDER_NAME = re.compile(_HOLDER, re.I)
holds = Phrase(_HOLDS)
_moves = Phrase(_MOVES)


def moved_from(text: str) -> str | None:
    """The phrase by which ``text`` moves a duty away from its holder, unless it also keeps
    the holder answerable for it."""
    return None if retains(text) else _moves(text)


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
