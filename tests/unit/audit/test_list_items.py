"""Items a policy's list leaves out (offline/lists.py), on short texts with the real MiniLM
model: a rule's list answered by a policy list that restates all but one of its items, in
other words; the dropped item said elsewhere; a policy list about something else."""

from __future__ import annotations

from uuid import uuid4

import numpy as np

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.chat.offline import lists, matching, obligations
from regintel.chat.offline.drafts import SHIPPED, Candidate
from regintel.chat.offline.segments import Unit, segment
from regintel.chat.offline.unit_lists import group_lists

RULE = """10.2 Correspondent banking
10.2.1 An Authorised Person proposing to have a correspondent banking relationship with a \
respondent bank must:
(a) undertake CDD on the respondent bank;
(b) determine from publicly available information the reputation of the respondent bank and \
the quality of supervision that it is subject to;
(c) assess the respondent bank's AML/TFS controls and ascertain if they are adequate and \
effective;
(d) ensure that prior approval of the Authorised Person's Senior Management is obtained \
before entering into a new correspondent banking relationship;
(e) ensure that the respective responsibilities of the parties to the correspondent banking \
relationship are properly documented.
"""
# The policy's list restates (a), (b), (c) and (e) in its own words, and leaves out (d).
POLICY = """7.1 Before opening an account for a respondent bank, the Compliance team must:
(a) complete CDD on the respondent bank;
(b) check public sources for its reputation and the quality of its supervision;
(c) assess whether its anti-money laundering controls are adequate and effective; and
(d) record in a written agreement what each party is responsible for.
"""
ELSEWHERE = """7.2 No correspondent banking relationship is entered into without the prior \
approval of the Firm's Senior Management.
"""
OTHER_LIST = """9.1 The training programme covers:
(a) the identity and role of the MLRO;
(b) how to recognise suspicious transactions;
(c) the Firm's sanctions screening procedures.
"""


TRUST_RULE = """8.3 Beneficial ownership
8.3.5 The Relevant Person must identify:
(a) the settlor of the trust;
(b) any other trustee(s) aside from the customer;
(c) each beneficiary of the trust;
(d) where the persons benefiting from the trust have not been determined, the class of \
persons in whose main interest the trust has been established or operates; and
(e) any Natural Person who has control over the trust.
"""
# Each item of the policy's list restates one of (a)-(d); the nearest to (e) restates (a).
TRUST_POLICY = """7.1 The Firm identifies, and verifies on a risk sensitive basis:
(a) the settlor, and any person who has added property to the trust;
(b) each trustee other than the Firm;
(c) each named beneficiary; and
(d) where beneficiaries have not yet been determined, the class of persons in whose main \
interest the trust was set up or operates.
"""


def _audit_items(embedder: LocalEmbedder, policy_text: str,
                 rule: str = RULE) -> list[str | None]:
    rule_units = [u for u in segment(uuid4(), {1: rule}) if obligations.is_obligation(u)]
    found = [Candidate(u, "Respondent banks", 0.8) for u in rule_units]
    policy = matching.policy_clauses(group_lists(segment(uuid4(), {1: policy_text},
                                                         max_unit_chars=0)))
    vectors = embedder.embed([matching.context_of(c.unit) for c in found])
    policy_vectors = embedder.embed([matching.context_of(u) for u in policy])
    enumeration = lists.enumerations(found, vectors, policy, policy_vectors,
                                     related=SHIPPED.topic, nested=SHIPPED.related)
    if not enumeration:
        return []
    drafts = lists.omitted(found, policy, policy_vectors, enumeration,
                           embedder.embed(enumeration.texts(found)),
                           title="AML", addressee="Authorised Person")
    for d in drafts:  # the policy's list is quoted, and named as where the item belongs
        assert d.kind == "gap" and d.policy_unit is not None
        assert d.policy_unit.clause == "7.1" and "list in clause 7.1" in d.suggestion
    return [d.target_clause for d in drafts]


def test_the_item_a_policy_list_leaves_out_is_a_gap(embedder: LocalEmbedder) -> None:
    assert _audit_items(embedder, POLICY) == ["10.2.1(d)"]


def test_an_item_whose_close_policy_items_restate_others_is_a_gap(
        embedder: LocalEmbedder) -> None:
    assert _audit_items(embedder, TRUST_POLICY, TRUST_RULE) == ["8.3.5(e)"]


def test_an_item_said_in_a_clause_of_its_own_is_no_gap(embedder: LocalEmbedder) -> None:
    assert _audit_items(embedder, POLICY + ELSEWHERE) == []


def test_a_list_about_something_else_is_no_counterpart(embedder: LocalEmbedder) -> None:
    assert _audit_items(embedder, OTHER_LIST) == []


def test_a_nested_list_is_read_as_a_list_of_its_own() -> None:
    item = Unit(uuid4(), 1, 0, 10, "(v) volume;", "volume of its Transactions;",
                "6.1.1(b)(v)", "any vulnerabilities relating to:", "", "BRA", False)
    assert lists.rule_item(item) == (1, "6.1.1")
    assert lists.sublist(item) == (1, "6.1.1(b)")
    top = Unit(uuid4(), 1, 0, 10, "(c) take measures;", "take measures;", "6.1.1(c)",
               "A Relevant Person must:", "", "BRA", False)
    assert lists.sublist(top) is None


def test_a_policy_item_accounts_for_one_rule_item_only() -> None:
    # Rule items (rows) 0 and 1 are both closest to policy item (column) 0; 2 to nothing.
    similarity = np.array([[0.80, 0.10], [0.70, 0.45], [0.30, 0.20]], dtype=np.float32)
    assert lists._paired(similarity) == {0: 0, 1: 1}  # 1 takes the second, 0.45 ≥ PAIRED
    similarity[1, 1] = 0.2
    assert lists._paired(similarity) == {0: 0}


def test_a_counterpart_restates_more_than_half_of_the_rule() -> None:
    owner = np.array([0, 0, 1, 1])
    similarity = np.array([[0.9, 0.1, 0.6, 0.1],
                           [0.2, 0.7, 0.1, 0.6],
                           [0.1, 0.2, 0.1, 0.2]], dtype=np.float32)
    assert lists._counterpart(similarity, owner) == 0  # both restate two; 0 more closely
    assert lists._counterpart(similarity[:, 2:], owner[2:]) == 1
    assert lists._counterpart(similarity[[0, 2]], owner) is None  # one of two is not more


def test_lists_cut_by_a_page_break_are_read_as_one() -> None:
    doc = uuid4()
    lead = Unit(doc, 1, 0, 30, "5.1 For these clients we require:",
                "For these clients we require:", "5.1", "", "", "EDD", False)
    first = Unit(doc, 1, 31, 60, "(a) more identification;", "more identification;",
                 "5.1(a)", lead.body, "", "EDD", False)
    grouped = group_lists([lead, first])
    second = Unit(doc, 2, 0, 30, "(b) senior approval;", "senior approval;", "5.1(b)",
                  lead.body, "", "EDD", False)
    rule = [Unit(doc, 1, k * 10, k * 10 + 5, f"({c}) item {c}", f"item {c} to do", f"8.4.1({c})",
                 "it must:", "", "EDD", False) for k, c in enumerate("abc")]
    found = [Candidate(u, "EDD", 0.8) for u in rule]
    policy = [*grouped, second]
    vectors = np.ones((3, 2), dtype=np.float32) / np.sqrt(2)
    enumeration = lists.enumerations(found, vectors, policy, vectors[:2], related=0.5,
                                     nested=0.5)
    [plist] = enumeration.lists
    assert [u.body for u in plist.items] == ["more identification;", "senior approval;"]
    assert plist.quoted is grouped[0] and plist.units == frozenset({0, 1})



# The policy's list as a PDF renders it: one paragraph, its items labelled inside the lines.
INLINE_POLICY = """7.1 Before opening an account for a respondent bank, the Compliance team must: \
(a) complete CDD on the respondent bank; (b) check public sources for its reputation and the \
quality of its supervision; (c) assess whether its anti-money laundering controls are adequate \
and effective; and (d) record in a written agreement what each party is responsible for.
"""


def test_a_list_written_in_one_paragraph_is_read_item_by_item(
        embedder: LocalEmbedder) -> None:
    assert _audit_items(embedder, INLINE_POLICY) == ["10.2.1(d)"]


MLRO_RULE = """12.2 The MLRO
12.2.1 A Relevant Person must ensure that its MLRO has:
(a) direct access to its Governing Body and Senior Management;
(b) sufficient resources, including an appropriate number of appropriately trained Employees;
(c) a level of seniority and independence that enables him to act on his own authority;
(d) timely and unrestricted access to information about the financial and business \
circumstances of a customer; and
(e) unrestricted access to relevant information about the features of a Transaction which \
the Relevant Person has entered into or may have contemplated.
"""
# One policy item says both (d) and (e).
MLRO_POLICY = """7.1 The Firm makes sure that the MLRO has:
(a) direct access to the Board and Senior Management;
(b) enough trained staff and other resources to work effectively;
(c) the seniority and independence to act on his or her own authority; and
(d) timely and unrestricted access to all information on customers, the persons they act \
for, and any Transaction carried out or contemplated.
"""


def test_a_policy_item_that_says_two_rule_items_restates_both(
        embedder: LocalEmbedder) -> None:
    assert _audit_items(embedder, MLRO_POLICY, MLRO_RULE) == []
