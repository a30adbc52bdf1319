"""Which of a regulation's obligations bind the policy's firm: the usual addressee always,
another kind of person only when the policy names it, and one of several alternatives
("an Authorised Person or a Recognised Body") when the policy names any of them."""

from __future__ import annotations

from uuid import uuid4

from regintel.chat.offline import scope
from regintel.chat.offline.obligations import applicability, kinds_named
from regintel.chat.offline.segments import Unit, segment

RULES = (
    "1.1\tA Relevant Person must keep its records for six years.\r\n"
    "1.2\tA Relevant Person must train its Employees every year.\r\n"
    "1.3\tA Relevant Person that is a DNFBP must register with the Registrar.\r\n"
    "1.4\tAn Authorised Person or a Recognised Body must ensure that its internal audit "
    "function reviews its controls.\r\n"
    "1.5\tA Relevant Person other than a Representative Office must appoint an MLRO.\r\n"
)


def _units() -> list[Unit]:
    units = segment(uuid4(), {1: RULES})
    assert [u.clause for u in units] == ["1.1", "1.2", "1.3", "1.4", "1.5"]
    return units


def _binding(policy: str) -> list[str | None]:
    units = _units()
    applies = applicability(units, policy)
    return [u.clause for u in units if applies(u)]


def test_the_usual_addressee_is_always_bound() -> None:
    assert _binding("The Firm keeps records.") == ["1.1", "1.2", "1.5"]


def test_an_alternative_named_by_the_policy_binds_the_firm() -> None:
    assert _binding("The Firm is an Authorised Person regulated by the FSRA.") == \
        ["1.1", "1.2", "1.4", "1.5"]


def test_a_policy_that_says_it_is_authorised_by_the_regulator_is_an_authorised_person() -> None:
    assert _binding("Heron is authorised by the Financial Services Regulatory Authority "
                    "(FSRA) to provide money services.") == ["1.1", "1.2", "1.4", "1.5"]
    assert _binding("Kestrel is registered with the FSRA as a DNFBP.") == \
        ["1.1", "1.2", "1.3", "1.5"]


def test_a_kind_within_the_addressee_binds_only_when_named() -> None:
    assert _binding("As a DNFBP, the Firm registers.") == ["1.1", "1.2", "1.3", "1.5"]


def test_kinds_named_lists_every_kind_before_the_verb_but_the_excepted() -> None:
    units = _units()
    assert [kinds_named(f"{u.stem} {u.body}") for u in units[2:]] == [
        ["Relevant Person", "DNFBP"], ["Authorised Person", "Recognised Body"],
        ["Relevant Person"]]


def test_what_the_firm_deals_with_binds_it_when_the_policy_names_it_in_its_own_words() -> None:
    rules = ("9.2.1\tA Relevant Person that maintains a Correspondent Account for a "
             "Correspondent Banking Client must identify the third parties that will use it."
             "\r\n")
    assert _applying(rules, "The Bank keeps USD vostro accounts for six regional banks and "
                            "offers correspondent services to them.") == ["9.2.1"]
    assert _applying(rules, "The Firm forms companies and provides registered offices.") == []


def test_a_kind_that_says_what_the_customer_is_is_no_addressee() -> None:
    rules = ("8.3.1\tA Relevant Person must identify each customer.\r\n"
             "8.3.2\tIf a customer is a Body Corporate, the Relevant Person must obtain the "
             "full names of the members of its Governing Body.\r\n")
    assert _applying(rules, "For a corporate customer we obtain its register of directors.") \
        == ["8.3.1", "8.3.2"]
    assert _applying(rules, "We serve individuals only.") == ["8.3.1"]


# -- what the firm says it does not offer ------------------------------------------------------
SCOPED = (
    "10.2\tCorrespondent banking\r\n"
    "10.2.1\tA Relevant Person proposing to have a correspondent banking relationship must "
    "obtain the approval of its Senior Management.\r\n"
    "10.3\tWire transfers\r\n"
    "10.3.1\tA Relevant Person must ensure that a wire transfer carries the originator's "
    "name.\r\n"
    "10.3.2\tA Relevant Person must review the termination of correspondent relationships "
    "with banks in high-risk jurisdictions.\r\n"
)


def _applying(rules: str, policy: str) -> list[str | None]:
    """The rules of ``rules`` (not their headings) that bind the firm ``policy`` describes."""
    units = segment(uuid4(), {1: rules})
    applies = applicability(units, policy)
    return [u.clause for u in units if u.clause and u.clause.count(".") == 2 and applies(u)]


def _scoped(policy: str) -> list[str | None]:
    return _applying(SCOPED, policy)


def test_rules_about_an_activity_the_firm_does_not_offer_do_not_bind_it() -> None:
    """By the section heading (10.2.1) or the rule's own words (10.3.2)."""
    assert _scoped("Heron offers no correspondent or nested services: we hold no accounts "
                   "for other financial institutions.") == ["10.3.1"]


def test_a_control_is_no_scope() -> None:
    """"does not carry out a transaction that it suspects …" says how the firm acts, not
    what it offers."""
    assert _scoped("Heron does not carry out a transaction that it suspects is related to "
                   "money laundering until it has informed the FIU.") == \
        ["10.2.1", "10.3.1", "10.3.2"]


def test_what_is_not_offered_is_read_by_its_name() -> None:
    found = scope.not_offered("The Firm does not provide services in Virtual Assets and does "
                              "not accept them as payment. It does not offer numbered "
                              "accounts. Virtual Assets are not accepted.")
    assert [(a.name, a.stems) for a in found] == [
        ("Virtual Assets", frozenset({"virtual", "asset"})),
        ("numbered accounts", frozenset({"number", "account"}))]


def test_a_word_of_every_rule_is_no_activity_by_itself() -> None:
    """"no … money services" puts the rules on money services out of scope, not every rule
    that says "money laundering"."""
    policy = "The Fund offers no correspondent banking or money services."
    assert [a.name for a in scope.not_offered(policy)] == \
        ["correspondent banking", "money services"]
    rules = ("9.3.1\tA Relevant Person must report money laundering suspicions to the FIU.\r\n"
             "9.3.2\tA Relevant Person that provides Money Services must keep a list of its "
             "agents.\r\n")
    assert _applying(rules, policy) == ["9.3.1"]


# -- a line of business the policy never names -----------------------------------------------
LINES = (
    "8.3.1\tA Relevant Person must verify the identity of each customer.\r\n"
    "8.3.2\tFor life insurance or other similar policies a Relevant Person must identify the "
    "beneficiary of the policy.\r\n"
)


def test_rules_for_a_line_of_business_bind_only_a_policy_that_names_it() -> None:
    assert _applying(LINES, "The Firm verifies the identity of each customer.") == ["8.3.1"]
    assert _applying(LINES, "The Firm writes life and health insurance.") == ["8.3.1", "8.3.2"]
