"""A condition of being regulated that a policy waives. The AML Rulebook lets a firm rely on
a third party only if it "is subject to regulation, including AML/TFS compliance
requirements, by a Non-ADGM Financial Services Regulator or other competent authority"; a
policy that relies on a firm "in good standing with its local bar …, whether or not that
firm is supervised for AML purposes" drops the condition. facets.read records both sides;
facets.comparable ties them."""

from __future__ import annotations

import re

from regintel.chat.offline.acts import Phrase

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
