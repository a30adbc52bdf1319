"""The sentences an offline answer is made of: a rule's lead-in carries its list, so "must
notify … of any change in its:" is answered with what the changes are."""

from __future__ import annotations

from uuid import uuid4

import numpy as np
import pytest

from regintel.chat.offline.compose import under_headings
from regintel.chat.offline.ranking import sentences_of
from regintel.domain.chat import quoted
from regintel.domain.documents import ChunkHit, DocType

TEXT = ("15.6\tNotifications\n"
        "15.6.1\tA DNFBP must promptly notify the Regulator of any change in its:\r\n"
        "(a)\tname;\r\n(b)\tlegal status;\r\n(c)\taddress;\r\n(e)\tsenior management; or\r\n"
        "(f)\tBeneficial ownership. \r\n"
        "15.6.2\t\r\n15.6.2.(1)\tA DNFBP must notify the Regulator in writing at least ten "
        "Business Days in advance of it ceasing to carry on its business.\r\n")


def _hit(text: str) -> ChunkHit:
    return ChunkHit(ordinal=0, text=text, page_start=1, page_end=1, char_start=0,
                    char_end=len(text), clause="15.6.1", chunk_id=uuid4(),
                    document_id=uuid4(), document_title="AML Rulebook",
                    document_version="VER09", doc_type=DocType.REGULATION, score=0.9)


def test_a_lead_in_is_one_sentence_with_its_list_and_the_next_rule_stays_apart() -> None:
    found = sentences_of([_hit(TEXT)])
    assert [s.clean for s in found] == [
        "A DNFBP must promptly notify the Regulator of any change in its: (a) name; (b) legal "
        "status; (c) address; (e) senior management; or (f) Beneficial ownership.",
        "A DNFBP must notify the Regulator in writing at least ten Business Days in advance "
        "of it ceasing to carry on its business."]
    assert all(s.text in TEXT for s in found)  # verbatim, so the quote verifies
    assert found[0].is_obligation and found[0].is_statement


def test_a_lead_in_whose_list_is_in_the_next_chunk_is_left_out() -> None:
    cut = TEXT[:TEXT.index("(a)")]
    assert [s.clean for s in sentences_of([_hit(cut)])] == []


def test_a_list_too_long_to_join_whole_says_it_goes_on() -> None:
    items = "".join(f"({chr(97 + k)})\tthe {k}th piece of information the rule asks for;\r\n"
                    for k in range(20))
    found = sentences_of([_hit("8.4.1\tIt must obtain:\r\n" + items)])
    first = found[0]
    assert first.text.startswith("8.4.1\tIt must obtain:") and first.continues
    assert len(first.text) <= 600 and first.shown.endswith("asks for; …")
    assert not first.is_heading  # the mark is for display; what the sentence is stays
    # The items past the cut are still there to be chosen on their own.
    assert any(s.text.startswith("(t)") for s in found[1:])


def test_a_heading_lends_its_closeness_to_the_rule_under_it() -> None:
    text = ("8.7\tFailure to conduct or complete Customer Due Diligence\r\n"
            "8.7.1.(1)\tWhere a Relevant Person is unable to conduct or complete the "
            "requisite CDD it must, where appropriate:\r\n(a)\tnot open an account;\r\n")
    found = sentences_of([_hit(text)])
    assert [s.is_heading for s in found] == [True, False]
    closeness = under_headings(found, np.array([0.76, 0.43], dtype=np.float32))
    assert closeness.tolist() == pytest.approx([0.76, 0.76])
    # The shown item ends where the chunk does; the list may go on in the next one.
    assert found[1].shown.endswith("(a) not open an account; …")


def test_a_heading_lends_nothing_across_chunks_or_to_another_heading() -> None:
    headings = _hit("8.7\tFailure to conduct or complete Customer Due Diligence\r\n"
                    "8.8\tReliance on other Persons for Customer Due Diligence\r\n")
    rule = _hit("8.8.1\tA Relevant Person may rely on a third party to conduct CDD.\r\n")
    found = sentences_of([headings, rule])
    assert [s.is_heading for s in found] == [True, True, False]
    closeness = under_headings(found, np.array([0.9, 0.5, 0.2], dtype=np.float32))
    assert closeness.tolist() == pytest.approx([0.9, 0.5, 0.2])


def test_a_guidance_label_with_its_heading_is_not_shown() -> None:
    text = ("8.3.6.Guidance on Politically Exposed Persons (PEPs) and corruption.5.\tThe "
            "Regulator considers that after leaving office a PEP remains a higher risk.\r\n")
    assert [s.shown for s in sentences_of([_hit(text)])] == [
        "The Regulator considers that after leaving office a PEP remains a higher risk."]


def test_a_quote_cut_mid_sentence_is_shown_so() -> None:
    assert quoted("The MLRO must report.") == "\"The MLRO must report.\""
    assert quoted("(a) the name of the customer;") == "\"(a) the name of the customer;\""
    assert quoted("provided that the signatory gives a signed declaration of") == \
        "\"provided that the signatory gives a signed declaration of…\""
