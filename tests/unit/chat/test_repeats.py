"""A follow-up's answer that only repeats the previous one, and one that speaks to it."""

from regintel.chat.repeats import addresses, all_said, previous_answer

PREVIOUS = ("Analyzing ADGM Anti-Money Laundering Rules (AML).\n\n"
            "Under ADGM Anti-Money Laundering Rules (AML), 12.1.1.(1): A Relevant Person must "
            "appoint an individual as the MLRO who has an appropriate level of seniority. [1]\n\n"
            "- ADGM Anti-Money Laundering Rules (AML), 12.1.2: The individual appointed as the "
            "MLRO of a DNFBP can be the same person as its principal. [2]")


def test_the_previous_answer_is_the_last_assistant_message() -> None:
    memory = {"recent": [{"role": "user", "content": "q1"}, {"role": "assistant", "content": "a1"},
                         {"role": "user", "content": "q2"}, {"role": "assistant", "content": "a2"}]}
    assert previous_answer(memory) == "a2"
    assert previous_answer({"recent": []}) is None
    assert previous_answer(None) is None


def test_an_answer_of_statements_already_made_is_all_said_whatever_names_its_document() -> None:
    again = ("Under ADGM Anti-Money Laundering Rules (AML), 12.1.1.(1): A Relevant Person must "
             "appoint an individual as the MLRO who has an appropriate level of seniority. [1]\n\n"
             "- AML 12.1.2: The individual appointed as the MLRO of a DNFBP can be the same "
             "person as its principal. [2]")
    assert all_said(again, PREVIOUS)
    new = again + "\n- AML 12.1.5: A Relevant Person must appoint a deputy MLRO. [3]"
    assert not all_said(new, PREVIOUS)
    assert not all_said("No passage addresses this.", PREVIOUS)  # nothing cited: no repeat


def test_a_repeat_holding_the_follow_ups_own_point_addresses_it() -> None:
    earlier = "Who has to be appointed as MLRO under the AML Rulebook?"
    assert not addresses(PREVIOUS, "does that person have to live in the UAE?", earlier)
    assert addresses(PREVIOUS + " The MLRO must be resident in the UAE. [3]",
                     "does that person have to live in the UAE?", earlier)
    # "approve" / "approval" share a stem; the earlier question's words are not new.
    assert addresses("… with the prior approval of the Regulator … [1]",
                     "and who has to approve it?", earlier)
    assert not addresses("… must appoint an individual as the MLRO … [1]",
                         "and the MLRO?", earlier)
