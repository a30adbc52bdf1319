"""Who answers for a duty, read on the rule's side and on the policy's: a responsibility the
firm keeps ("remains responsible") or passes to someone outside it ("responsibility rests with
the Provider"); a report that must reach the MLRO ("promptly notifies the … MLRO") or that
someone else decides on first ("who decides whether the matter is passed to" the officer);
full access for the AML function or the MLRO's direct access to the Board, or access kept
from them; and the holder of a duty ("its MLRO … is responsible for") or the duty moved
away from it ("answered by the Managing Director rather than the MLRO"). facets.read
records them; conflicts.comparable sets a rule's against a policy's."""

from __future__ import annotations

import re

from regintel.chat.offline.acts import Phrase

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
