"""A list item is quoted so that the quote says what the item is for: with the nearest
lead-in above it when both fit one quote, the list from its start when the item cannot
stand alone, and alone otherwise. Lists are found as PDFs render them: items labelled inside
a paragraph, a lead-in carried over a page break."""

from __future__ import annotations

from uuid import uuid4

from regintel.chat.offline.segments import Unit, segment
from regintel.chat.offline.unit_lists import group_lists, in_its_list
from regintel.domain.chat import MAX_QUOTE_CHARS

RULE = (
    "8.4.1\tWhere a Relevant Person is required to undertake Enhanced CDD, it must:\n"
    "(a)\tobtain additional identification information on the customer and all Beneficial "
    "Owners, and information on the reasons for a Transaction;\n"
    "(b)\tupdate the CDD information which it holds on the customer more regularly;\n"
    "(c)\tidentify and verify:\n"
    "(i)\tthe Source of Funds; and\n"
    "(ii)\tthe Source of Wealth;\n"
)
REPORTING = (
    "14.2.1\tA Relevant Person must establish and maintain policies, procedures, systems and "
    "controls in order to monitor its customers, and Transactions, for the purpose of "
    "identifying and reporting suspicious activity, and keep records of what it found.\n"
    "14.2.2\tA Relevant Person must have policies, procedures, systems and controls to ensure "
    "that whenever any Employee, acting in the ordinary course of his employment, either:\n"
    "(a)\tknows;\n(b)\tsuspects; or\n(c)\thas reasonable grounds for knowing or suspecting,\n"
    "that a Person is engaged in or attempting money laundering or terrorist financing, that "
    "Employee promptly notifies the Relevant Person's MLRO and provides the MLRO with all "
    "relevant details.\n"
)
LONG = (
    "9.1.1\tA Relevant Person which relies on a third party to conduct one or more elements "
    "of CDD on its behalf remains responsible for any failure to comply with the CDD "
    "requirements of these Rules, and may only rely on that third party if and to the extent "
    "that, before it does so, it:\n"
    "(a)\tcan immediately obtain the necessary CDD information from the third party;\n"
    "(b)\ttakes adequate steps to satisfy itself that certified copies of the documents used "
    "to undertake the relevant elements of CDD will be available from the third party on "
    "request without delay;\n"
)


def _list(text: str) -> Unit:
    group = group_lists(segment(uuid4(), {1: text}))[-1]
    assert len(group.parts) >= 3
    return group


def _part(group: Unit, starting: str) -> Unit:
    return next(p for p in group.parts if p.body.startswith(starting))


def test_an_item_is_read_from_its_own_lead_in() -> None:
    group = _list(RULE)
    shown = in_its_list(_part(group, "the Source of Funds"), group)
    assert shown.text == "(c) identify and verify: (i) the Source of Funds; and"
    assert RULE[shown.start:shown.end].replace("\t", " ").replace("\n", " ") == shown.text


def test_an_item_that_fits_with_its_lead_in_is_quoted_with_it() -> None:
    group = _list(RULE)
    shown = in_its_list(_part(group, "obtain additional"), group)
    assert shown.text.startswith("8.4.1 Where a Relevant Person") and \
        shown.text.endswith("reasons for a Transaction;")


def test_an_item_that_stands_alone_is_quoted_alone() -> None:
    group = _list(LONG)
    item = _part(group, "takes adequate steps")
    assert in_its_list(item, group) is item


def test_closing_words_too_far_from_the_lead_in_bring_the_whole_list() -> None:
    group = _list(REPORTING)
    assert len(group.text) > MAX_QUOTE_CHARS
    assert in_its_list(_part(group, "that a Person"), group) is group


def test_the_lead_in_and_the_whole_list_are_quoted_as_they_are() -> None:
    group = _list(RULE)
    assert in_its_list(group, group) is group
    assert in_its_list(group.parts[0], group) is group.parts[0]


def test_an_omitted_item_is_quoted_from_its_lead_in_or_alone() -> None:
    """A gap on a list item quotes it from the lead-in above when both fit, and the item
    alone when they do not: the list's opening without the item would not show what is
    missing."""
    from regintel.chat.offline.audit import _shown, _Target
    from regintel.chat.offline.drafts import Candidate, Draft

    units = segment(uuid4(), {1: RULE + LONG})
    lists = {(p.page, p.start): g for g in group_lists(units) for p in g.parts[1:]}
    target = _Target(None, [], {}, units, [], lists)  # type: ignore[arg-type]

    def gap_on(starting: str) -> Unit:
        unit = next(u for u in units if u.body.startswith(starting))
        return _shown(Draft(Candidate(unit, "theme", 0.8), unit, unit.clause, "gap", "High",
                            None, 0.5, 0.5, "", ""), target)

    assert gap_on("the Source of Funds").text == \
        "(c) identify and verify: (i) the Source of Funds; and"
    takes = gap_on("takes adequate steps")
    assert takes.text.startswith("(b) takes adequate steps")


def test_items_labelled_inside_a_paragraph_are_items() -> None:
    text = ("9.1.1 Before opening a vostro account, the Bank: (a) carries out CDD on the "
            "respondent under Rule 8.3.1(1)(b); (b) obtains enough information on its "
            "ownership; and (c) assesses its controls; (e) out of sequence stays in (c).\n")
    units = segment(uuid4(), {1: text})
    assert [(u.clause, u.body) for u in units[1:]] == [
        ("9.1.1(a)", "carries out CDD on the respondent under Rule 8.3.1(1)(b);"),
        ("9.1.1(b)", "obtains enough information on its ownership; and"),
        ("9.1.1(c)", "assesses its controls; (e) out of sequence stays in (c).")]
    assert {u.stem for u in units[1:]} == {"Before opening a vostro account, the Bank:"}


def test_a_lead_in_carried_over_a_page_break_is_the_items_lead_in() -> None:
    pages = {1: "9.1.1 Godwit serves licensed banks with a physical presence in\n",
             2: "the country where they are licensed. Before opening an account, FCC:\n"
                "(a) carries out CDD;\n(b) obtains the approval of the MLRO.\n"}
    items = segment(uuid4(), pages)[-2:]
    assert [u.clause for u in items] == ["9.1.1(a)", "9.1.1(b)"]
    assert all(u.stem.endswith("Before opening an account, FCC:") for u in items)
