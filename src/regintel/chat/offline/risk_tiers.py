"""Measures bounded by risk tiers, where a policy moves the bound. The AML Rulebook lets a
firm lighten its measures where the risk is low: "may undertake Simplified CDD … for any
customer assigned a low-risk rating"; "does not have to fulfil the verification of the
identity … before undertaking a Transaction … where … there is little risk of money
laundering". A policy that grants the same easing to other clients ("Simplified CDD may be
applied to a client rated low or medium risk"; "verification … may be completed after the
first Transaction for a client of any risk rating") contradicts the rule, though it shares
its words and says "may" as the rule does. The other way round, a policy that holds a
required measure back for the higher tiers ("Beneficial Owners are checked for PEP status
only where the client has been rated high risk"; "independent verification of Source of
Wealth is reserved for PEP relationships") leaves it undone for customers the rule covers.
facets.read records each side; conflicts.comparable ties them."""

from __future__ import annotations

import re

from regintel.chat.offline.refusals import refused

# The rule's side: a licence ("may", "does not have to", "is not required to") whose
# condition is a low risk, as the rules word it.
_LICENCE = re.compile(r"\b(?:may(?! not| only)|(?:does|do) not have to|need not|"
                      r"(?:is|are) not required to)\b", re.I)
_LOW_RISK = re.compile(r"\b(?:(?:any\s+customer\s+)?assigned\s+a\s+low[- ]risk\s+rating|"
                       r"little\s+risk\s+of\s+money\s+laundering|low[- ]risk\s+\w+|"
                       r"(?:the\s+)?risks?\s+(?:is|are)\s+low)\b", re.I)
# The policy's side: the same kind of licence, for an easing ("simplified", "reduced",
# "completed after", "deferred", "waived"), given to clients beyond low risk.
_GRANTS = re.compile(r"\b(?:may|can|need not|(?:is|are) not required|(?:is|are) "
                     r"(?:allowed|permitted))\b", re.I)
_EASES = re.compile(r"\b(?:simplif\w*|reduc\w*|lighter|defer\w*|postpon\w*|after|later|"
                    r"waiv\w*|dispens\w*|exempt\w*)\b", re.I)
_BEYOND_LOW = re.compile(
    r"\b(?:low(?:[- ]risk)?\s+(?:or|and|and/or)\s+medium(?:[- ]risk)?(?:\s+risk)?|"
    r"medium[- ]risk|(?:of\s+)?any\s+risk\s+(?:rating|level|category|profile)|"
    r"(?:regardless|irrespective)\s+of\s+(?:the\s+|its\s+|their\s+)?risk(?:\s+rating)?|"
    r"whatever\s+(?:the\s+|its\s+|their\s+)?risk(?:\s+rating)?|"
    r"(?:all|every)\s+risk\s+(?:ratings?|levels?|categor(?:y|ies))|"
    r"(?:standard|normal)[- ]risk)\b", re.I)


def for_low_risk(text: str) -> str | None:
    """The condition of an easing a rule allows only where the risk is low ("any customer
    assigned a low-risk rating"), as written; None when the text allows none."""
    if not _LICENCE.search(text):
        return None
    m = _LOW_RISK.search(text)
    return m[0] if m else None


def beyond_low_risk(text: str) -> str | None:
    """The words by which a policy grants an easing to clients who are not low risk ("low
    or medium risk", "any risk rating"); None when it does not, or refuses it to them
    ("may not be applied to medium-risk clients", "only … low risk")."""
    grant = _GRANTS.search(text)
    if grant is None or not _EASES.search(text):
        return None
    m = _BEYOND_LOW.search(text, grant.start())
    if m is None or refused(text, grant.start(), m.start(), only=True):
        return None
    return m[0]


# A measure held back for the higher tiers: "only where …", "reserved for …", "limited to …",
# up to a named tier; the tiers are read to the end of the clause ("only where the client
# is rated high risk or is a PEP" holds it to both).
_HELD = re.compile(r"\b(?:only\s+(?:where|if|when|for|in\s+the\s+case\s+of)|reserved\s+for|"
                   r"limited\s+to|restricted\s+to)\b[^.;]{0,80}?\b(?:high(?:er)?[- ]risk|rated\s+"
                   r"high|PEPs?\b|politically\s+exposed)", re.I)
_TIERS = {"high": re.compile(r"\bhigh(?:er)?[- ]risk|\brated\s+high\b", re.I),
          "pep": re.compile(r"\bPEPs?\b|\bpolitically\s+exposed\b", re.I)}
_CLAUSE_END = re.compile(r"[,.;:]")


def tiers(text: str) -> frozenset[str]:
    """The higher tiers a text names ("high" risk, "pep")."""
    return frozenset(name for name, pattern in _TIERS.items() if pattern.search(text))


def held_to(text: str) -> tuple[frozenset[str], str] | None:
    """The tiers a policy holds a measure back for, and its words ("only where the client has
    been rated high risk"); None when it holds none back."""
    m = _HELD.search(text)
    if m is None:
        return None
    end = _CLAUSE_END.search(text, m.end())
    phrase = text[m.start():end.start() if end else len(text)].strip()
    return tiers(phrase), phrase


def narrower(rule_text: str, held: frozenset[str]) -> bool:
    """Whether a policy that holds a measure to ``held`` applies it to fewer customers than
    the rule: the rule names no tier (it binds for every customer), or one the policy's
    bound leaves out."""
    named = tiers(rule_text)
    return not named or not named <= held
