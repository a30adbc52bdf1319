"""Where a policy's fact contradicts a rule's: a shorter period than the rule's minimum, a
later deadline (a duty to act at once done later, or on a cycle), a rarer frequency, a higher
trigger amount or percentage, a sample where the rule says all, permitted where the rule
prohibits. Facts are compared only with facts of the same kind (and unit): a retention period
is never weighed against a review cycle."""

from __future__ import annotations

import re
from collections.abc import Sequence

from regintel.domain.coverage import FactDifference, TypedFact

_TOLERANCE = 1.02  # "one month" (30 days) is no contradiction of "30 days"


def _contradicts(rule: TypedFact, policy: TypedFact) -> bool:
    if rule.kind != policy.kind:
        return False
    r, p = rule.value, policy.value
    match rule.kind:
        case "period":
            if r is None or p is None:
                return False
            if rule.comparator == "at_most":
                return p > r * _TOLERANCE
            return p * _TOLERANCE < r
        case "deadline":
            if r is None or p is None or (rule.unit == "day of year") != (
                    policy.unit == "day of year"):
                return False
            if rule.unit == "day of year":
                return p > r + 1
            return p > max(r, 1.0) * _TOLERANCE if r > 0 else p > 1.0
        case "frequency":
            return r is not None and p is not None and p > r * _TOLERANCE
        case "amount" | "percentage":
            if r is None or p is None or rule.unit != policy.unit:
                return False
            # A trigger ("USD 15,000 or more") or a cap set higher by the policy.
            return p > r * _TOLERANCE
        case "threshold":
            if r is None or p is None or rule.unit != policy.unit:
                return False
            return p > r * _TOLERANCE if rule.comparator == "at_most" else p * _TOLERANCE < r
        case "extent":
            return rule.unit == "all" and policy.unit == "sample"
        case "permission":
            return rule.unit == "prohibited" and policy.unit == "permitted"
        case _:
            return False


# "Without undue delay and in any event within one month": a bound on the delay, in the same
# breath as the duty to act at once.
_BOUNDED = re.compile(r"\b(?:without (?:undue )?delay|immediately|promptly|forthwith)\b[^.;]{0,60}?"
                      r"\b(?:in any event|at the latest|not later than|no later than|within)\b",
                      re.IGNORECASE)


def put_off(rule_facts: Sequence[TypedFact], policy_facts: Sequence[TypedFact],
            rule_text: str = "") -> FactDifference | None:
    """A duty to act at once ("without delay", "immediately") that the policy does later: a
    deadline of more than a day, or on a cycle ("at the end of each month"). Not when the
    rule bounds the delay itself ("without undue delay and in any event within one month":
    that bound decides), nor when the policy acts at once too ("immediately, and in any
    event within one business day")."""
    def prompt(f: TypedFact) -> bool:
        return f.kind == "deadline" and f.unit == "day" and not f.value

    at_once = next((f for f in rule_facts if prompt(f)), None)
    if at_once is None or _BOUNDED.search(rule_text) or any(prompt(f) for f in policy_facts):
        return None
    later = next((f for f in policy_facts if f.kind in ("deadline", "frequency")
                  and f.unit == "day" and f.value is not None and f.value > 1.0), None)
    return None if later is None else FactDifference(kind="deadline", policy=later.text,
                                                     rule=at_once.text)


def differences(rule_facts: Sequence[TypedFact],
                policy_facts: Sequence[TypedFact]) -> list[FactDifference]:
    """Each contradiction once, in the rule's order of facts."""
    found: list[FactDifference] = []
    for rule in rule_facts:
        for policy in policy_facts:
            if _contradicts(rule, policy):
                found.append(FactDifference(kind=rule.kind, policy=policy.text, rule=rule.text))
                break
    return found
