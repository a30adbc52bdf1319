"""Contradictions about acts rather than quantities: done after the relationship starts
(or a new product has gone live, or a provider has been appointed) instead of before,
allowed or done when forbidden, replaced or waived when required, a responsibility the firm
keeps passed to someone else, a risk factor the rule has weighed set aside, something the
rule excludes accepted, a report that must reach the MLRO left to someone else's decision."""

from __future__ import annotations

import pytest

from regintel.chat.offline import conflicts, facets


def _conflict(rule: str, policy: str) -> conflicts.Conflict | None:
    r, p = facets.read(rule), facets.read(policy)
    for kind in sorted(conflicts.comparable(rule, r, p)):
        if (found := conflicts.conflict(kind, r, p)) is not None:
            return found
    return None


@pytest.mark.parametrize(("rule", "policy", "kind"), [
    ("A Relevant Person must undertake a risk-based assessment of every customer prior to "
     "establishing a business relationship with a customer;",
     "The Onboarding Committee confirms the final risk rating within ten business days after "
     "the customer's account has been opened.", "order"),
    ("Prior to establishing the business relationship, a Relevant Person must establish and "
     "verify the identity of its business partners.",
     "Brokers are identified and verified within 30 days after the Firm begins dealing with "
     "them.", "order"),
    ("A Relevant Person must ensure that it does not enter into, or continue a corresponding "
     "banking relationship with, a bank which is known to permit its accounts to be used by "
     "Shell Banks.",
     "If a respondent bank permits its accounts to be used by Shell Banks, the relationship "
     "may continue until the next annual review.", "prohibition"),
    ("A Relevant Person must not carry out Transactions that it suspects to be related to "
     "money laundering until it has informed the FIU.",
     "The dealing desk may execute the order before the SAR has been filed.", "prohibition"),
    ("Relevant Person A must not charge B a fee for the provision of Customer Due Diligence "
     "information.",
     "The Firm recovers its costs by charging the requesting firm an administration fee of "
     "USD 200 for each customer file provided.", "prohibition"),
    ("A Relevant Person must undertake Enhanced CDD for each of its customers assigned a "
     "high-risk rating.",
     "For other customers rated high, the Committee may decide to apply standard CDD instead "
     "of Enhanced CDD where the risk is mitigated.", "waiver"),
    ("A Relevant Person which outsources any one or more elements of its CDD to a service "
     "provider remains responsible for compliance with, and liable for any failure to meet, "
     "such obligations.",
     "Once a file has been verified by the Provider, responsibility for the accuracy of the "
     "verification rests with the Provider under the services agreement.", "responsibility"),
    ("Prior to launching any new product, service, or business practice, or using a new or "
     "developing technology, a Relevant Person must take reasonable steps to ensure that it "
     "has assessed and identified the money laundering risks relating to the product.",
     "FCC completes a post implementation risk review within three months of go live.",
     "order"),
    ("When undertaking a risk-based assessment of a customer, a Relevant Person must take "
     "into account all relevant risk factors, including: the provision of nominee directors.",
     "Because nominee director services are routine for us, their provision is not treated "
     "as a risk factor in the client risk score.", "risk"),
    ("A Relevant Person must not establish a business relationship with a customer if the "
     "ownership arrangements of the customer prevent it from identifying its Beneficial "
     "Owners.",
     "Where one or more Controllers cannot be identified, the Matter may proceed with the "
     "written approval of the Managing Director.", "prohibition"),
    ("If a customer is a Natural Person, a Relevant Person must obtain and verify "
     "information about the person's: (e) current residential address, other than a post "
     "office box.",
     "Where a street address is not available, the client's P.O. Box number is recorded and "
     "accepted as the residential address.", "exclusion"),
    ("A Relevant Person must ensure that whenever any Employee suspects money laundering, "
     "that Employee promptly notifies the Relevant Person's MLRO.",
     "An employee who has a suspicion must first raise it with his or her head of desk, who "
     "decides whether the matter is passed to the Financial Crime Officer.", "filter"),
    ("A Relevant Person relying on a third party remains responsible for the CDD.",
     "Where an introducer has performed CDD, the Firm is not responsible for its accuracy.",
     "responsibility"),
    # After a provider is appointed, where the rule wants it before.
    ("Prior to appointing a service provider to undertake CDD, a Relevant Person must "
     "undertake an initial assurance assessment of the service provider.",
     "Compliance assesses each new verification vendor within three months after the vendor "
     "goes live.", "order"),
    # A prohibition set out as a list ("must not: (a) …"), its lead-in ending in a colon.
    ("A DNFBP must not: use or reproduce the logo of the Regulator without express written "
     "permission from the Regulator.",
     "Our website and invoices use the FSRA logo next to our registration number.",
     "prohibition"),
    ("A Relevant Person must not: establish or maintain a business relationship with a Shell "
     "Bank;",
     "The Firm may maintain a correspondent relationship with a Shell Bank where the Board "
     "approves.", "prohibition"),
    # A required measure that may be dropped, not only replaced.
    ("A Relevant Person must undertake Enhanced CDD for each of its customers assigned a "
     "high-risk rating.",
     "The MLRO may waive Enhanced CDD for a high-risk customer whose exposure is small.",
     "waiver"),
    # A payout made before the verification the rule puts first.
    ("For life insurance policies a Relevant Person must verify the identity of beneficiaries "
     "before it makes a payout under the policy.",
     "For small death claims, the Claims team may release payment and complete verification "
     "of the beneficiary's identity within 30 days after settlement.", "order"),
    # A factor of the risk-based assessment left out of the scoring (the rule's number has
    # dots that end no sentence).
    ("When undertaking a risk-based assessment of a customer under 7.1.1(1)(a), a Relevant "
     "Person must identify, assess and consider: the customer's country of origin, "
     "residence, nationality, place of incorporation or place of business;",
     "The Scorecard looks at the country of residence; nationality and country of origin "
     "are not scored.", "risk"),
    # The MLRO kept from the Board.
    ("A Relevant Person must ensure that its MLRO has: direct access to the Governing Body "
     "and its Senior Management;",
     "The MLRO does not have a direct line to the Board; matters are escalated through the "
     "Chief Risk Officer.", "access"),
    # The MLRO's access to information granted only on a partner's approval.
    ("A Relevant Person must ensure that its MLRO has: unrestricted access to relevant "
     "information about the features of the Transaction;",
     "Access by the MLRO to transaction documents on a live matter is granted with the "
     "approval of the Supervising Partner.", "access"),
    # Reliance on a firm whether or not it is regulated, where the rule makes that a condition.
    ("Where a Relevant Person seeks to rely on a Person in (1) it may only do so if and to the "
     "extent that: the Person in (1)(b) to (d) is subject to regulation, including AML/TFS "
     "compliance requirements, by a Non-ADGM Financial Services Regulator;",
     "Reliance may be placed on a law firm in good standing with its local bar, whether or "
     "not that firm is supervised for AML purposes.", "unregulated"),
    # A DNFBP that has itself described as authorised: it is registered, not authorised.
    ("A DNFBP must not: misrepresent its regulatory status with respect to the Regulator "
     "expressly or by implication; or",
     "Engagement letters may describe Egret Chambers LLP as authorised and regulated by the "
     "Financial Services Regulatory Authority.", "status"),
    # The MLRO's duty owned by another function, without a word of moving it.
    ("A Relevant Person must ensure that its MLRO implements and has oversight of and is "
     "responsible for the following matters: establishing and maintaining an appropriate "
     "money laundering training programme and adequate awareness arrangements.",
     "The People and Culture Department owns the financial crime training programme and is "
     "responsible for establishing and maintaining it.", "owner"),
])
def test_an_act_against_the_rule_is_a_conflict(rule: str, policy: str, kind: str) -> None:
    found = _conflict(rule, policy)
    assert found is not None and found.kind == kind
    assert found.rule in rule and found.policy in policy  # both sides can be quoted


@pytest.mark.parametrize(("rule", "policy"), [
    # Done before the relationship starts, as required.
    ("A Relevant Person must verify the identity of a customer prior to establishing a "
     "business relationship.",
     "The Firm verifies the identity of each customer before the account is opened."),
    # The forbidden act, refused.
    ("A Relevant Person must not carry out Transactions that it suspects to be related to "
     "money laundering until it has informed the FIU.",
     "The Firm does not carry out a Transaction it suspects until the FIU has been informed."),
    ("Relevant Person A must not charge B a fee for the provision of Customer Due Diligence "
     "information.",
     "The Firm provides customer files to other firms free of charge and does not charge a "
     "fee."),
    # A "may" about another act.
    ("A Relevant Person must not carry out Transactions that it suspects to be related to "
     "money laundering until it has informed the FIU.",
     "No Employee may tell a customer that a report has been made."),
    ("A Relevant Person must keep records for at least six years.",
     "Records may be kept in electronic form."),
    # The forbidden verb in a time or condition clause, not the act done.
    ("A Relevant Person must not establish or maintain a business relationship with a Shell "
     "Bank.",
     "Before establishing a business relationship, the Firm verifies the customer's identity."),
    ("A Relevant Person must not establish or maintain a business relationship with a Shell "
     "Bank.",
     "The Firm establishes a business relationship only after the Committee approves it."),
    # Done before the provider is appointed, as required.
    ("Prior to appointing a service provider to undertake CDD, a Relevant Person must "
     "undertake an initial assurance assessment of the service provider.",
     "Compliance completes the initial assurance assessment before the provider is "
     "appointed."),
    # Something else waived.
    ("A Relevant Person must undertake Enhanced CDD for each of its customers assigned a "
     "high-risk rating.",
     "The MLRO may waive the account fee for registered charities."),
    # After another start: a relationship, where the rule speaks of a launch.
    ("Prior to launching any new product, a Relevant Person must assess its money laundering "
     "risks.",
     "The Firm verifies the identity of each customer within 30 days after the account has "
     "been opened."),
    # Going ahead, but not in the case the rule forbids it in.
    ("A Relevant Person must not establish a business relationship with a customer if the "
     "ownership arrangements of the customer prevent it from identifying its Beneficial "
     "Owners.",
     "Once every Controller has been identified and verified, the Matter may proceed."),
    ("A Relevant Person must not establish a business relationship with a customer if the "
     "ownership arrangements of the customer prevent it from identifying its Beneficial "
     "Owners.",
     "Where a Controller cannot be identified, the Matter may not proceed."),
    # What the rule excludes, refused; or another thing accepted.
    ("If a customer is a Natural Person, a Relevant Person must obtain and verify "
     "information about the person's: (e) current residential address, other than a post "
     "office box.",
     "A P.O. Box is not accepted as a residential address."),
    ("If a customer is a Natural Person, a Relevant Person must obtain and verify "
     "information about the person's: (e) current residential address, other than a post "
     "office box.",
     "A tenancy contract is accepted as proof of the residential address."),
    # An exclusion of whom the rule speaks to is not one of what it requires.
    ("A Relevant Person, other than a Representative Office, must appoint a deputy MLRO.",
     "A Representative Office is accepted as exempt from appointing a deputy."),
    # The MLRO's own decision on what comes next is no filter.
    ("A Relevant Person must ensure that whenever any Employee suspects money laundering, "
     "that Employee promptly notifies the Relevant Person's MLRO.",
     "The Onboarding Desk must refer the case to the MLRO, who decides whether a suspicion "
     "report is needed."),
    # A risk factor weighed, as required.
    ("When undertaking a risk-based assessment of a customer, a Relevant Person must take "
     "into account all relevant risk factors, including: the provision of nominee directors.",
     "The provision of nominee directors is treated as a risk factor in the client risk "
     "score."),
    # Responsibility given to the firm's own officer is allocated, not given away.
    ("A Relevant Person which outsources any one or more elements of its CDD to a service "
     "provider remains responsible for compliance with such obligations.",
     "Responsibility for overseeing the Provider rests with the MLRO."),
    ("A Relevant Person which outsources any one or more elements of its CDD to a service "
     "provider remains responsible for compliance with such obligations.",
     "The Firm remains responsible for the CDD the Provider performs."),
    # Verified before the payout, as required.
    ("For life insurance policies a Relevant Person must verify the identity of beneficiaries "
     "before it makes a payout under the policy.",
     "Claims Operations verifies the identity of each beneficiary before any payment is "
     "released."),
    # A limit on the MLRO's access to the Board is not one on access to information.
    ("A Relevant Person must ensure that its MLRO has: timely and unrestricted access to "
     "information the Relevant Person has about a customer;",
     "The MLRO does not have a direct line to the Board; matters are escalated through the "
     "Chief Risk Officer."),
    # The claim forbidden, as the rule forbids it.
    ("A DNFBP must not: misrepresent its regulatory status with respect to the Regulator "
     "expressly or by implication; or",
     "Staff must never describe the Firm as authorised by the FSRA; it is registered with the "
     "FSRA as a DNFBP."),
    # Reliance only on regulated firms, as the rule requires.
    ("Where a Relevant Person seeks to rely on a Person in (1) it may only do so if and to the "
     "extent that: the Person in (1)(b) to (d) is subject to regulation, including AML/TFS "
     "compliance requirements, by a Non-ADGM Financial Services Regulator;",
     "Reliance is placed only on a firm that is supervised for AML purposes by its home "
     "regulator."),
    # Another function owning a different duty, or the compliance function owning this one.
    ("A Relevant Person must ensure that its MLRO implements and has oversight of and is "
     "responsible for the following matters: establishing and maintaining an appropriate "
     "money laundering training programme and adequate awareness arrangements.",
     "The Facilities Department is responsible for the security of the archive rooms."),
    ("A Relevant Person must ensure that its MLRO implements and has oversight of and is "
     "responsible for the following matters: establishing and maintaining an appropriate "
     "money laundering training programme and adequate awareness arrangements.",
     "The Compliance Department owns the training programme and is responsible for "
     "establishing and maintaining it."),
])
def test_an_act_in_line_with_the_rule_is_no_conflict(rule: str, policy: str) -> None:
    assert _conflict(rule, policy) is None
