"""Which units of a regulation are obligations, how grave a failure to meet each one is,
and how a finding about it is worded."""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable, Sequence

from regintel.chat.offline import definitions, risk_tiers, scope
from regintel.chat.offline.conflicts import Conflict
from regintel.chat.offline.measures import EXEMPTION
from regintel.chat.offline.segments import Unit
from regintel.domain.chat import SEVERITY_ORDER, Severity

# "must", "shall", "is required to" … and prohibitions; "should" is guidance, "may" a licence,
# but "may only" a condition ("it may only do so if … it immediately obtains …").
# "Remains responsible" binds too: the duty of a firm that outsources or relies on others; and
# so does "is responsible for", which gives a duty its holder ("A Relevant Person's Governing
# Body is responsible for establishing … its AML/TFS policies"), and so does "Responsibility
# for … lies with every member of the Governing Body"; and the rules' reach over
# all of a firm's activities ("applies to: … every Relevant Person in respect of all its
# activities carried out in or from the ADGM"), which a policy's own scope must not narrow.
_MODAL = re.compile(r"\b(must|shall|is required to|are required to|is obliged to|are obliged "
                    r"to|is prohibited|are prohibited|may not|may only|is to be|are to be|"
                    r"remains? (?:fully |ultimately |solely )?(?:responsible|liable)|"
                    r"(?:is|are) (?:fully |ultimately |solely )?responsible for|"
                    r"responsibility for\b[^.;]{0,80}?\blies with|"
                    r"in respect of all (?:of )?its activities)\b", re.I)
# A lead-in of this kind makes its items obligations ("it must:" … "(e) obtain …").
_PERMISSION = re.compile(r"\bmay\b(?! not| only)", re.I)
MAX_CONTEXT_WORDS = 48
MAX_STEM_WORDS = 16

# Severity by subject, first match wins (DESIGN: sanctions, reporting and CDD failures are
# the gravest; record-keeping periods next; governance and training; then documentation).
_SUBJECTS: tuple[tuple[Severity, re.Pattern[str]], ...] = (
    ("Critical", re.compile(
        r"sanction|targeted financial|freez|suspicious|SAR|STR\b|tipping|terroris|shell bank|"
        r"anonymous|fictitious|nominee account|proliferation", re.I)),
    ("High", re.compile(
        r"due diligence|\bCDD\b|beneficial owner|\bPEP|politically exposed|verif|identif|"
        r"record|retain|kept|MLRO|reporting officer|correspondent|wire transfer|occasional "
        r"transaction|high[- ]risk|source of (?:funds|wealth)|senior management", re.I)),
    ("Medium", re.compile(
        r"training|risk assessment|review|audit|monitor|governing body|report|policies|"
        r"procedures|systems and controls|notif", re.I)),
)


def binds(text: str) -> bool:
    """The text says must/shall/required (not "should" or "may")."""
    return bool(_MODAL.search(text))


def is_obligation(unit: Unit) -> bool:
    """A binding requirement: not guidance, and the unit or the lead-in it completes says
    must/shall/required (a permissive lead-in, "modification … may include:", does not)."""
    if unit.guidance or len(unit.body) < 12:
        return False
    if _MODAL.search(unit.body):
        return True
    return bool(unit.stem) and bool(_MODAL.search(unit.stem)) and \
        not _PERMISSION.search(unit.stem)


def limits_an_easing(unit: Unit) -> bool:
    """A licence the rules give for low risk only ("may undertake Simplified CDD … for any
    customer assigned a low-risk rating"): no duty, so never an omission, but a policy that
    takes the licence further contradicts it (risk_tiers.py)."""
    return not unit.guidance and risk_tiers.for_low_risk(f"{unit.stem} {unit.body}") is not None


def sets_a_condition(unit: Unit) -> bool:
    """An item of an exemption's conditions ("such Group member need not meet the condition
    in (3)(c) if: … (c) a written statement is received … confirming that: … the
    identification evidence will be kept for at least six years"): no duty, but a policy
    that relies on the exemption on a weaker condition (five years) contradicts it."""
    return not unit.guidance and bool(unit.stem) and EXEMPTION.search(unit.stem) is not None


def defines_a_term(unit: Unit) -> bool:
    """A rule that says what a word covers ("a 'business partner' includes: …"): no duty,
    but a policy that narrows the word contradicts it (definitions.py)."""
    return not unit.guidance and definitions.defined(f"{unit.stem} {unit.body}") is not None


_KIND = re.compile(r"\b[Aa]n? ((?:[A-Z][\w/-]*\b ?){1,4})")


def subject_kinds(unit: Unit) -> list[str]:
    """The kinds of person an obligation is addressed to, as named before its verb ("A
    Representative Office must …", "A Relevant Person that is a DNFBP must …")."""
    return kinds_named(f"{unit.stem} {unit.body}")


def kinds_named(text: str) -> list[str]:
    """``subject_kinds`` of a text."""
    return [kind for either in _alternatives(text) for kind in either]


def _alternatives(text: str) -> list[list[str]]:
    """The kinds named before the verb, those joined by "or" together: "An Authorised
    Person or a Recognised Body must …" binds a firm that is either, and "A Relevant Person
    that is a DNFBP must …" only one that is both."""
    return [group for group, _ in _named_before_the_verb(text)]


def _named_before_the_verb(text: str) -> list[tuple[list[str], bool]]:
    """``_alternatives``, each group marked when it names what the firm deals with rather
    than what it is: "A Relevant Person that … maintains a Correspondent Account for a
    Correspondent Banking Client must …"."""
    modal = _MODAL.search(text)
    head = text[:modal.start()] if modal else text
    groups: list[tuple[list[str], bool]] = []
    end = None
    for m in _KIND.finditer(head):
        if _EXCEPT.search(head[:m.start()]):  # "other than a Representative Office"
            continue
        kind = " ".join(m[1].split())
        between = head[end:m.start()] if end is not None else head[:m.start()]
        if groups and _OR.fullmatch(between):
            groups[-1][0].append(kind)
        else:
            # The first kind named is the addressee, unless it says what someone else is:
            # "If a customer is a Body Corporate, the Relevant Person must …".
            thing = not _IS.search(between) if groups else bool(_IS.search(between))
            groups.append(([kind], thing))
        end = m.end()
    return groups


_EXCEPT = re.compile(r"(?:other than|except|excluding|not)\s*$", re.I)
_OR = re.compile(r"\s*(?:,\s*)?(?:or|and/or)\s*", re.I)
_IS = re.compile(r"\b(?:is|are|being)\s*$", re.I)
# Words that say nothing of which business a thing belongs to.
_GENERIC = frozenset({"account", "accounts", "client", "clients", "customer", "customers",
                      "person", "persons", "body", "service", "services", "provider",
                      "relationship", "firm", "entity", "arrangement", "transaction"})


def usual_addressee(units: Sequence[Unit]) -> str:
    """The kind of person a regulation mostly speaks to ("Relevant Person" in AML)."""
    named = Counter(k for u in units if is_obligation(u) for k in subject_kinds(u))
    return named.most_common(1)[0][0] if named else ""


def applicability(units: Sequence[Unit], policy_text: str, *,
                  assumed: Sequence[str] = ()) -> Callable[[Unit], bool]:
    """Whether an obligation applies to the policy's firm: the regulation's usual addressee
    (its most named kind: "Relevant Person" in AML, "Authorised Person" in GEN) and the
    ``assumed`` kinds always do; another kind ("a Representative Office", "a DNFBP", "an
    NPO") only when the policy names it; none about an activity the policy says its firm
    does not offer, nor about a line of business it never names (scope.py)."""
    usual = {usual_addressee(units), *assumed}
    text = policy_text.lower()
    named = {kind for kind, says in _SAYS_KIND.items() if says.search(policy_text)}
    not_offered = scope.not_offered(policy_text)
    unnamed = scope.lines_not_named(policy_text)

    @functools.cache  # asked of every unit of the regulation, about a few dozen kinds
    def named_in_policy(kind: str, thing: bool) -> bool:
        if kind in usual or kind.lower() in text or kind.lower() in named:
            return True
        # What the firm deals with may be named in the policy's own words ("vostro accounts
        # for … banks" and "correspondent services" for "a Correspondent Account"): one of its
        # telling words is enough.
        return thing and any(re.search(rf"\b{re.escape(w)}", text)
                             for w in kind.lower().split() if w not in _GENERIC)

    def applies(unit: Unit) -> bool:
        said = f"{unit.stem} {unit.body}"
        return all(any(named_in_policy(k, thing) for k in either)
                   for either, thing in _named_before_the_verb(said)) and \
            not scope.out_of_scope(unit, not_offered) and \
            not scope.on_line(said, unnamed)

    return applies


# A policy says what kind of firm it is in its own words as often as in the regulation's
# defined term: a firm "authorised by the Financial Services Regulatory Authority" holds a
# Financial Services Permission, which is what makes it an Authorised Person (GLO).
_SAYS_KIND = {
    "authorised person": re.compile(
        r"\bauthori[sz]ed (?:and regulated )?by the (?:FSRA|Financial Services Regulatory "
        r"Authority|Regulator)\b|\bFinancial Services Permission\b", re.I),
}


def context_text(unit: Unit) -> str:
    """What is embedded for a unit: its section heading, the start of its lead-in and its
    text, at most MAX_CONTEXT_WORDS words (MiniLM's cost grows with the length)."""
    stem = unit.stem.split()[:MAX_STEM_WORDS]
    return " ".join([*unit.section.split(), *stem, *unit.body.split()][:MAX_CONTEXT_WORDS])


def subject_severity(unit: Unit) -> Severity:
    text = " ".join((unit.chapter, unit.section, unit.stem, unit.body))
    for severity, pattern in _SUBJECTS:
        if pattern.search(text):
            return severity
    return "Low"


def severity(unit: Unit, *, kind: str) -> Severity:
    """A contradiction is as grave as its subject; an omission one step less, since the
    firm may meet the requirement in a procedure the policy does not show."""
    base = subject_severity(unit)
    if kind == "conflict":
        return base
    return SEVERITY_ORDER[min(SEVERITY_ORDER.index(base) + 1, len(SEVERITY_ORDER) - 1)]


def reference(title: str, clause: str | None) -> str:
    return f"{title} {clause}" if clause else title


def consequence(ref: str, level: Severity, *, kind: str, what: str = "policy") -> str:
    """What failing ``ref`` may cost, by severity, naming the clause."""
    verb = "contradicts" if kind == "conflict" else "does not provide for"
    tail = {
        "Critical": "enforcement action by the regulator, significant financial penalties "
                    "and, for sanctions and reporting failures, criminal liability of the firm "
                    "and its officers",
        "High": "enforcement action by the regulator, including financial penalties and "
                "public censure",
        "Medium": f"supervisory findings and a requirement to remediate the {what}",
        "Low": "supervisory comments in the next review",
    }[level]
    return f"The {what} {verb} {ref}; non-compliance may lead to {tail}."


def conflict_suggestion(ref: str, policy_clause: str | None, found: Conflict) -> str:
    where = f"clause {policy_clause}" if policy_clause else "the policy"
    match found.kind:
        case "period":
            return (f"Amend {where} so that the period is {found.rule}, as {ref} requires "
                    f"(the policy says {found.policy}).")
        case "deadline":
            return (f"Amend {where} to require action {found.rule}, as {ref} requires, "
                    f"instead of allowing {found.policy}.")
        case "notice":
            return (f"Amend {where} so that this is done {found.rule}, as {ref} requires, "
                    f"not {found.policy}.")
        case "frequency":
            return (f"Amend {where} so that this happens {found.rule}, as {ref} requires, "
                    f"not {found.policy}.")
        case "amount" | "percent":
            return (f"Amend {where} to apply the threshold of {ref} ({found.rule}) instead "
                    f"of {found.policy}.")
        case "modality":
            return (f"Amend {where} to make this mandatory, as {ref} requires "
                    f"(\"{found.rule}\"), instead of leaving it to discretion "
                    f"(\"{found.policy}\").")
        case "date":
            return (f"Amend {where} so that this is done {found.rule}, as {ref} requires, "
                    f"not {found.policy}.")
        case "independence":
            return (f"Amend {where} so that this decision is taken independently and is not "
                    f"subject to anyone's consent or approval, as {ref} requires.")
        case "order":
            return (f"Amend {where} so that this is done {found.rule}, as {ref} requires, "
                    f"not {found.policy}.")
        case "prohibition":
            return (f"Amend {where}: {ref} forbids this (\"{found.rule}\"), and the policy "
                    f"allows or does it (\"{found.policy}\").")
        case "waiver":
            return (f"Amend {where} so that the measure {ref} requires is always applied "
                    f"(\"{found.rule}\"), instead of allowing \"{found.policy}\".")
        case "cycle":
            return (f"Amend {where} so that this is done {found.rule}, as {ref} requires, "
                    f"each time it arises, not in the policy's {found.policy} round.")
        case "filter":
            return (f"Amend {where} so that the report goes to the MLRO, with no one "
                    f"deciding first whether it does, as {ref} requires (\"{found.rule}\"); "
                    f"the policy routes it elsewhere (\"{found.policy}\").")
        case "exclusion":
            return (f"Amend {where} so that it no longer accepts what {ref} excludes "
                    f"(\"{found.rule}\"); the policy says \"{found.policy}\".")
        case "risk":
            return (f"Amend {where} so that this factor is weighed in the risk assessment, "
                    f"as {ref} requires (\"{found.rule}\"), instead of \"{found.policy}\".")
        case "aggregation":
            return (f"Amend {where} so that linked transactions are added together against "
                    f"the threshold, as {ref} requires (\"{found.rule}\"), instead of "
                    f"\"{found.policy}\".")
        case "access":
            return (f"Amend {where} so that the MLRO and the staff performing AML/TFS and "
                    f"audit functions have {found.rule}, as {ref} requires, instead of "
                    f"\"{found.policy}\".")
        case "refund":
            return (f"Amend {where} so that the customer's money is returned, as {ref} "
                    f"requires (\"{found.rule}\"), instead of \"{found.policy}\".")
        case "scope":
            return (f"Amend {where} so that the policy covers every activity {ref} reaches "
                    f"(\"{found.rule}\"), instead of leaving some out (\"{found.policy}\").")
        case "undisclosed":
            return (f"Amend {where} so that the firm knows the identity of everyone an account "
                    f"is held for, as {ref} requires (\"{found.rule}\"), instead of "
                    f"\"{found.policy}\".")
        case "delegation":
            return (f"Amend {where} so that the duty stays with its holder under {ref} "
                    f"(\"{found.rule}\"); the policy moves it (\"{found.policy}\").")
        case "outside":
            return (f"Amend {where} so that it covers what {ref} includes (\"{found.rule}\"), "
                    f"instead of \"{found.policy}\".")
        case "status":
            return (f"Amend {where} so that the firm is described as registered with the "
                    f"Regulator, not \"{found.policy}\" ({ref}: \"{found.rule}\").")
        case "unregulated":
            return (f"Amend {where} so that it relies only on those who meet the condition "
                    f"{ref} sets (\"{found.rule}\"), not \"{found.policy}\".")
        case "sample":
            return (f"Amend {where} so that it covers {found.rule}, as {ref} requires, not "
                    f"\"{found.policy}\".")
        case "owner":
            return (f"Amend {where} so that the duty rests with the holder {ref} names "
                    f"(\"{found.rule}\"), not with another function (\"{found.policy}\").")
        case "pending":
            return (f"Amend {where} so that the work waits until CDD is complete, as {ref} "
                    f"requires (\"{found.rule}\"), instead of going ahead \"{found.policy}\".")
        case "review":
            return (f"Amend {where} so that the review does what {ref} requires, instead of "
                    f"\"{found.policy}\".")
        case "share":
            return (f"Amend {where} so that the exemption is used only on the condition {ref} "
                    f"sets (\"{found.rule}\"), not on \"{found.policy}\".")
        case "definition":
            return (f"Amend {where} so that \"{found.rule}\" keeps the meaning {ref} gives it, "
                    f"instead of \"{found.policy}\".")
        case "bound":
            return (f"Amend {where} so that it covers {found.rule}, as {ref} requires, not "
                    f"only \"{found.policy}\".")
        case "deferral":
            return (f"Amend {where} so that this is done when it arises, as {ref} requires "
                    f"(\"{found.rule}\"), not left \"{found.policy}\".")
        case "tier":
            return (f"Amend {where} so that the measure is applied to every customer {ref} "
                    f"covers (\"{found.rule}\"), not only \"{found.policy}\".")
        case "easing":
            return (f"Amend {where} so that the easing is used only where {ref} allows it "
                    f"(\"{found.rule}\"), not for \"{found.policy}\".")
        case "responsibility":
            return (f"Amend {where} so that the firm keeps the responsibility, whoever does "
                    f"the work: {ref} says it \"{found.rule}\", and the policy says "
                    f"\"{found.policy}\".")
    return f"Align {where} with {ref}."  # pragma: no cover - every kind is handled above


def item_suggestion(ref: str, unit: Unit, policy_clause: str | None) -> str:
    """For an item a policy's list leaves out: where it belongs, and what it asks."""
    where = f"the list in clause {policy_clause}" if policy_clause else "the policy's list"
    requirement = unit.body if len(unit.body) <= 220 else \
        unit.body[:217].rsplit(" ", 1)[0] + "…"
    return (f"{where[0].upper()}{where[1:]} restates the other items of this rule but leaves "
            f"out {ref}; add: \"{requirement}\"")


def gap_suggestion(ref: str, unit: Unit, section: str | None) -> str:
    where = f"section \"{section}\"" if section else "the policy"
    requirement = " ".join(f"{unit.stem} {unit.body}".split()) if unit.stem else unit.body
    if len(requirement) > 220:
        requirement = requirement[:217].rsplit(" ", 1)[0] + "…"
    return f"Add to {where} a provision that meets {ref}: \"{requirement}\""
