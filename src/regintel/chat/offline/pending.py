"""Work a policy lets go ahead while CDD is outstanding. The AML Rulebook puts CDD first:
"the appropriate CDD obligations … must be fulfilled before the Relevant Person undertakes
any Transaction"; a DNFBP "must fulfil the appropriate CDD … before the Relevant Person
prepares for or carries out a Transaction or provision of a service". A policy that lets its
staff start the work in the meantime ("an engagement team may start preparing for … an
engagement … while CDD is still in progress") reverses that order, however it bounds the
work. Not where it forbids the work meanwhile ("goods are never released … while
verification is outstanding"). facets.read records both sides; conflicts.comparable ties them.
(A relationship or an account opened before CDD is the "order" kind: acts.before_start.)"""

from __future__ import annotations

import re

from regintel.chat.offline.refusals import refused

# The rule's side: CDD (or verification, identification) before the work is done.
_CDD_FIRST = re.compile(
    r"\b(?:CDD|due\s+diligence|verif\w*|identif\w*)\b[^.;]{0,120}?\b(?:before|prior\s+to)\s+"
    r"(?:the\s+Relevant\s+Person\s+)?(?:prepares?|preparing|carr(?:y|ies)\s+out|carrying\s+"
    r"out|undertak\w+|execut\w+|effect\w*|provid\w+)\b", re.I)
# The policy's side: the work allowed ("may") while CDD is not yet done.
_PENDING = re.compile(
    r"\b(?:while|whilst)\s+(?:the\s+|its\s+|our\s+|their\s+)?(?:CDD|due\s+diligence|KYC|"
    r"(?:identity\s+)?verification|identification)(?:\s+checks?)?\s+(?:is|are)\s+(?:still\s+)?"
    r"(?:in\s+progress|pending|outstanding|under\s+way|ongoing|incomplete|being\s+\w+)|"
    r"\bbefore\s+(?:the\s+|its\s+|our\s+)?(?:CDD|due\s+diligence|KYC|verification)\s+(?:is|has\s+"
    r"been)\s+(?:fully\s+)?complete[d]?|"
    r"\bpending\s+(?:the\s+)?(?:completion\s+of\s+)?(?:the\s+|its\s+)?(?:CDD|due\s+diligence|"
    r"KYC|verification)\b", re.I)
_ALLOWED = re.compile(r"\bmay\b(?!\s+not\b)", re.I)


def cdd_first(text: str) -> str | None:
    """The words by which a rule has CDD done before the work ("CDD … before the Relevant
    Person prepares for or carries out"), if it does."""
    m = _CDD_FIRST.search(text)
    return m[0] if m else None


def while_pending(text: str) -> str | None:
    """The words by which a policy lets work go ahead while CDD is outstanding ("while CDD
    is still in progress"); None when it does not allow the work, or refuses it."""
    m = _PENDING.search(text)
    if m is None:
        return None
    allowed = _ALLOWED.search(text, 0, m.start())
    if allowed is None or refused(text, 0, m.start(), only=True):
        return None
    return m[0]
