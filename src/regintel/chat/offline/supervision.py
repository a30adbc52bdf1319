"""What a policy says of regulation against what the rules say of it. A condition of being
regulated that a policy waives. The AML Rulebook lets a firm rely on
a third party only if it "is subject to regulation, including AML/TFS compliance
requirements, by a Non-ADGM Financial Services Regulator or other competent authority"; a
policy that relies on a firm "in good standing with its local bar …, whether or not that
firm is supervised for AML purposes" drops the condition. And a status a DNFBP claims: the
rules have a DNFBP "not: … misrepresent its regulatory status with respect to the
Regulator"; it is registered with the FSRA, not authorised by it, so a policy that lets
staff "describe Egret Chambers LLP as authorised and regulated by the Financial Services
Regulatory Authority" misrepresents it. facets.read records both sides; conflicts.comparable
ties them."""

from __future__ import annotations

import re

from regintel.chat.offline.acts import Phrase
from regintel.chat.offline.refusals import refused_in_clause

_OVERSEEN = r"(?:supervised|regulated|licensed|authori[sz]ed|subject\s+to\s+(?:regulation|" \
            r"supervision|AML\s+supervision))"
# The rule's side: the condition that someone is regulated.
_REGULATED = re.compile(rf"\b(?:is|are|be)\s+{_OVERSEEN}\b", re.I)
# The policy's side: the same condition, held not to matter.
_WAIVED = re.compile(
    r"\b(?:whether\s+or\s+not|regardless\s+of\s+whether|irrespective\s+of\s+whether|even\s+"
    rf"(?:if|where|though))\b[^.;]{{0,60}}?\b(?:(?:is|are)\s+)?(?:not\s+)?{_OVERSEEN}\b", re.I)
must_be_regulated = Phrase(_REGULATED)
regulation_waived = Phrase(_WAIVED)

_MISREPRESENT = re.compile(r"\bDNFBP\b[^.;]{0,20}?\bmust\s+not\b[^.;]{0,40}?\bmisrepresent\w*\s+"
                           r"its\s+regulatory\s+status\b", re.I)
_CLAIMED = re.compile(r"\b(?:authori[sz]ed|licensed)\s+(?:and\s+regulated\s+)?by\s+(?:the\s+)?"
                      r"(?:FSRA|Financial\s+Services\s+Regulatory\s+Authority|Regulator)\b", re.I)
keeps_status = Phrase(_MISREPRESENT)


def claims_authorisation(text: str) -> str | None:
    """The words by which a policy has the firm described as authorised by the FSRA; None
    when it does not, or forbids it ("must never be described as authorised …")."""
    m = _CLAIMED.search(text)
    if m is None:
        return None
    return None if refused_in_clause(text, m.start()) else m[0]
