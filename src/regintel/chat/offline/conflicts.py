"""Whether a policy clause's facts fall short of an obligation's: the kinds of fact both
state (comparable), and for each kind whether the policy's is weaker (conflict)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from regintel.chat.offline import (
    acts,
    bounds,
    definitions,
    measures,
    out_of_scope,
    owners,
    review_scope,
    risk_tiers,
    roles,
    samples,
)
from regintel.chat.offline.facets import Facets
from regintel.chat.offline.lexical import terms

Kind = Literal["period", "deadline", "frequency", "amount", "percent", "modality",
               "independence", "date", "order", "prohibition", "waiver", "cycle",
               "responsibility", "risk", "exclusion", "filter", "notice", "aggregation",
               "refund", "access", "delegation", "undisclosed", "scope", "easing", "tier",
               "pending", "deferral", "bound", "definition", "review", "share", "owner", "sample",
               "unregulated", "status", "outside"]



@dataclass(frozen=True)
class Conflict:
    kind: Kind
    rule: str  # what the obligation says, as written ("at least six years")
    policy: str  # what the policy says instead ("five years")


_Said = Callable[[Facets], str | None]
# The kinds read as an act of the rule's against the policy's opposite act, each phrase as
# written: a responsibility kept / passed on, a risk factor weighed / set aside, a report
# sent to the MLRO / decided on first, operations linked / counted apart, money returned /
# kept, full access / access limited, a duty's holder / the duty moved, an undisclosed
# beneficiary forbidden / accepted, all activities reached / some put out of scope.
ACTS_AGAINST: dict[Kind, tuple[_Said, _Said]] = {
    "responsibility": (lambda f: f.retains, lambda f: f.shifts),
    "risk": (lambda f: f.weighs, lambda f: f.dismisses),
    "filter": (lambda f: f.to_mlro, lambda f: f.filters),
    "aggregation": (lambda f: f.links, lambda f: f.splits),
    "refund": (lambda f: f.returns, lambda f: f.keeps),
    "access": (lambda f: f.full_access, lambda f: f.limits_access),
    "delegation": (lambda f: f.holds, lambda f: f.moved_from),
    "owner": (lambda f: f.holds, lambda f: f.owned_by[1] if f.owned_by else None),
    "unregulated": (lambda f: f.regulated, lambda f: f.unregulated),
    "status": (lambda f: f.keeps_status, lambda f: f.claims_authorisation),
    "outside": (lambda f: f.includes[1] if f.includes else None,
                lambda f: f.outside[1] if f.outside else None),
    "undisclosed": (lambda f: f.undisclosed, lambda f: f.accepts_unnamed),
    "scope": (lambda f: f.all_activities, lambda f: f.carves_out),
    "easing": (lambda f: f.eases_low, lambda f: f.eases_beyond),
    "pending": (lambda f: f.cdd_first, lambda f: f.while_pending),
    "deferral": (lambda f: f.on_event, lambda f: f.deferred),
    "definition": (lambda f: f.defines, lambda f: f.not_counted),
}



def comparable(rule_text: str, rule: Facets, policy: Facets) -> set[Kind]:
    """The kinds of fact both texts state, so that the policy's can be checked against the
    obligation's."""
    kinds: set[Kind] = set()
    if rule.minimum_days and policy.minimum_days:
        kinds.add("period")
    if rule.notice_days and policy.notice_days:
        kinds.add("notice")
    if (rule.deadline_days or rule.urgent) and policy.deadline_days:
        kinds.add("deadline")
    if rule.frequency_months and policy.frequency_months:
        kinds.add("frequency")
    if _prompt_only(rule) and policy.frequency_months and not policy.urgent and \
            not policy.deadline_days and not measures.ON_EVENT.search(policy.text):
        kinds.add("cycle")
    if measures.AT_LEAST.search(rule_text):
        if {c for c, _ in rule.amounts} & {c for c, _ in policy.amounts}:
            kinds.add("amount")
        if rule.percents and policy.percents:
            kinds.add("percent")
    if rule.mandatory and not rule.permissive and not rule.discretionary and \
            policy.discretionary:
        kinds.add("modality")
    if rule.independent and policy.approval and not policy.independent:
        kinds.add("independence")
    if rule.due_dates and policy.due_dates:
        kinds.add("date")
    if rule.before_start and not rule.after_start and policy.after_start and \
            not policy.before_start and \
            acts.starts_at(rule.before_start) == acts.starts_at(policy.after_start):
        kinds.add("order")
    forbidden = {verb for verb, _, _ in rule.forbids}
    if forbidden & {verb for verb, _ in policy.allows} or _goes_ahead(rule, policy) or \
            any(acts.does(policy.text, verb, objects) for verb, objects, _ in rule.forbids):
        kinds.add("prohibition")
    if rule.retains and policy.shifts:
        kinds.add("responsibility")
    if rule.weighs and rule.mandatory and policy.dismisses:
        kinds.add("risk")
    if rule.excludes and rule.mandatory and policy.accepts and \
            rule.excludes[0] <= set(terms(policy.text)):
        kinds.add("exclusion")
    if rule.to_mlro and rule.mandatory and policy.filters:
        kinds.add("filter")
    if rule.links and policy.splits:
        kinds.add("aggregation")
    if rule.returns and rule.mandatory and policy.keeps:
        kinds.add("refund")
    if rule.full_access and rule.mandatory and policy.limits_access and \
            roles.to_governors(rule.full_access) == roles.to_governors(policy.limits_access):
        kinds.add("access")
    if rule.holds and roles.holder(rule.holds) == roles.holder(policy.moved_from):
        kinds.add("delegation")
    if rule.holds and rule.mandatory and policy.owned_by and not policy.moved_from and \
            owners.same_duty(rule_text, rule.holds, policy.owned_by[0]):
        kinds.add("owner")
    if rule.mandatory and rule.every and policy.sampled and \
            any(samples.same_things(what, policy.sampled[0]) for what, _ in rule.every):
        kinds.add("sample")
    if rule.regulated and policy.unregulated:
        kinds.add("unregulated")
    if rule.keeps_status and policy.claims_authorisation:
        kinds.add("status")
    if rule.mandatory and rule.includes and policy.outside and \
            out_of_scope.leaves_out_included(rule.includes[0], policy.outside[0]):
        kinds.add("outside")
    if rule.undisclosed and policy.accepts_unnamed:
        kinds.add("undisclosed")
    if rule.all_activities and policy.carves_out:
        kinds.add("scope")
    if rule.eases_low and policy.eases_beyond:
        kinds.add("easing")
    if rule.cdd_first and rule.mandatory and policy.while_pending:
        kinds.add("pending")
    if rule.on_event and rule.mandatory and policy.deferred:
        kinds.add("deferral")
    if rule.defines and policy.not_counted and \
            definitions.narrows(rule.defines, policy.not_counted):
        kinds.add("definition")
    if rule.mandatory and policy.review_leaves_out and \
            review_scope.has_review_do(rule_text, policy.review_leaves_out[0]):
        kinds.add("review")
    if rule.exempt_share and policy.percents and \
            min(policy.percents) < rule.exempt_share[0]:
        kinds.add("share")  # an exemption taken on a smaller share than its condition's
    if rule.mandatory and policy.bounded and \
            bounds.named_without_share(rule_text, policy.bounded[0]):
        kinds.add("bound")
    if rule.mandatory and not rule.permissive and policy.held_to and \
            risk_tiers.narrower(rule_text, policy.held_to[0]):
        kinds.add("tier")
    if rule.mandatory and not rule.permissive and policy.substitutes and \
            policy.substitutes[0] and policy.substitutes[0] <= set(terms(rule_text)):
        kinds.add("waiver")
    return kinds


def mentions(kind: Kind, facts: Facets) -> bool:
    """Whether ``facts`` say anything of ``kind`` (an urgency is a deadline's kind)."""
    if kind in ACTS_AGAINST:
        said, says = ACTS_AGAINST[kind]
        return bool(said(facts) or says(facts))
    match kind:
        case "period":
            return bool(facts.minimum_days)
        case "notice":
            return bool(facts.notice_days)
        case "deadline":
            return bool(facts.deadline_days or facts.urgent)
        case "frequency":
            return bool(facts.frequency_months)
        case "amount":
            return bool(facts.amounts)
        case "percent":
            return bool(facts.percents)
        case "modality":
            return bool(facts.discretionary or facts.mandatory)
        case "independence":
            return facts.approval or facts.independent
        case "date":
            return bool(facts.due_dates)
        case "order":
            return bool(facts.before_start or facts.after_start)
        case "prohibition":
            return bool(facts.forbids or facts.allows)
        case "waiver":
            return facts.substitutes is not None
        case "cycle":
            return bool(facts.urgent or facts.frequency_months)
        case "exclusion":
            return bool(facts.excludes or facts.accepts)
        case "tier":
            return facts.held_to is not None
        case "bound":
            return facts.bounded is not None
        case "review":
            return facts.review_leaves_out is not None
        case "share":
            return bool(facts.exempt_share or facts.percents)
        case "sample":
            return bool(facts.every or facts.sampled)
    return False  # pragma: no cover - every kind is handled above




def conflict(kind: Kind, rule: Facets, policy: Facets) -> Conflict | None:
    """Whether the policy's statement of ``kind`` falls short of the obligation's. A stricter
    policy (keeps records longer, reports sooner, reviews more often, a lower threshold) is no
    conflict; modality and independence are conflicts whenever comparable."""
    p = policy.phrases
    r = rule.phrases
    if kind in ACTS_AGAINST:  # comparable only when the policy's act opposes the rule's
        said, says = ACTS_AGAINST[kind]
        return Conflict(kind, said(rule) or "", says(policy) or "")
    match kind:
        case "period":
            if max(policy.minimum_days) < min(rule.minimum_days):
                return Conflict(kind, r["period"], p["period"])
        case "notice":
            if max(policy.notice_days) < min(rule.notice_days):
                return Conflict(kind, r["notice"], p["notice"])
        case "deadline":
            if rule.deadline_days and min(policy.deadline_days) > max(rule.deadline_days):
                return Conflict(kind, r["deadline"], p["deadline"])
            if not rule.deadline_days and rule.urgent and not policy.urgent and \
                    min(policy.deadline_days) > measures.URGENT_DAYS:
                return Conflict(kind, rule.urgent, p["deadline"])
        case "frequency":
            if min(policy.frequency_months) > max(rule.frequency_months):
                return Conflict(kind, r["frequency"], p["frequency"])
        case "amount":
            for currency, value in rule.amounts:
                theirs = [v for c, v in policy.amounts if c == currency]
                if theirs and min(theirs) > value:
                    return Conflict(kind, r["amount"], p["amount"])
            if edge := measures.edge_left_out(rule.text, policy.text, measures.MONEY):
                return Conflict(kind, *edge)
        case "percent":
            if min(policy.percents) > max(rule.percents):
                return Conflict(kind, r["percent"], p["percent"])
            if edge := measures.edge_left_out(rule.text, policy.text, measures.PERCENT):
                return Conflict(kind, *edge)
        case "modality":
            return Conflict(kind, r["mandatory"], policy.discretionary or "")
        case "independence":
            return Conflict(kind, "independently", p["approval"])
        case "date":
            if min(policy.due_dates) > max(rule.due_dates):
                return Conflict(kind, r["date"], p["date"])
        case "order":
            if rule.before_start and policy.after_start:
                return Conflict(kind, rule.before_start, policy.after_start)
        case "prohibition":
            return _prohibition(rule, policy)
        case "waiver":
            if policy.substitutes:
                return Conflict(kind, r.get("mandatory", ""), policy.substitutes[1])
        case "cycle":  # comparable only when the policy names a cycle and no promptness
            return Conflict(kind, rule.urgent or "", p["frequency"])
        case "exclusion":  # comparable only when the policy accepts what the rule excludes
            return Conflict(kind, rule.excludes[1] if rule.excludes else "",
                            policy.accepts or "")
        case "share":  # comparable only when the policy's share is below the condition's
            if rule.exempt_share:
                return Conflict(kind, rule.exempt_share[1], p.get("percent", ""))
        case "review":  # comparable only when the rule has the review do what it leaves out
            if policy.review_leaves_out:
                return Conflict(kind, r.get("mandatory", ""), policy.review_leaves_out[1])
        case "bound":  # comparable only when the rule names the persons with no share
            if policy.bounded:
                return Conflict(kind, bounds.named_without_share(rule.text, policy.bounded[0])
                                or "", policy.bounded[1])
        case "sample":  # comparable only when the sample is of what the rule has all of
            if policy.sampled:
                asked = [p for what, p in rule.every
                         if samples.same_things(what, policy.sampled[0])]
                return Conflict(kind, asked[0] if asked else "", policy.sampled[1])
        case "tier":  # comparable only when the policy's bound leaves customers out
            return Conflict(kind, r.get("mandatory", ""),
                            policy.held_to[1] if policy.held_to else "")
    return None


def _prompt_only(rule: Facets) -> bool:
    """A duty to act promptly ("must promptly notify", "immediately"), with no period or
    cycle of its own: a policy that waits for its annual (or quarterly) round to do it
    does not act promptly."""
    return bool(rule.urgent) and rule.mandatory and not rule.deadline_days and \
        not rule.frequency_months


def _prohibition(rule: Facets, policy: Facets) -> Conflict | None:
    """A forbidden act the policy allows ("may continue" what must not be continued; "may
    execute" what must not be carried out until …), says it does ("charging … a fee"), or
    goes ahead with in the case the rule forbids it in ("cannot be identified, the Matter
    may proceed")."""
    policy_terms = set(terms(policy.text))
    for verb, objects, phrase in rule.forbids:
        for allowed, said in policy.allows:
            if allowed == verb and (objects & policy_terms or
                                    (acts.timed(rule.text) and acts.timed(policy.text))):
                return Conflict("prohibition", phrase, said)
        if (word := acts.does(policy.text, verb, objects)):
            return Conflict("prohibition", phrase, word)
    going = _goes_ahead(rule, policy)
    return Conflict("prohibition", rule.forbids[0][2], going) if going else None


def forbids_when_unable(rule: Facets) -> bool:
    """A rule forbidding an act where something cannot be done ("must not establish … if
    … prevents … from identifying")."""
    return bool(rule.forbids) and acts.unable(rule.text)


def going_ahead(clause: Facets) -> str | None:
    """The phrase by which a clause lets the matter go ahead ("may proceed") where something
    cannot be done ("cannot be identified"), if it does."""
    if not acts.unable(clause.text):
        return None
    return next((said for verb, said in clause.allows if verb in acts.GO_AHEAD), None)


def _goes_ahead(rule: Facets, policy: Facets) -> str | None:
    """A policy that goes ahead in the case a rule forbids acting in: the phrase, if so."""
    return going_ahead(policy) if forbids_when_unable(rule) else None
