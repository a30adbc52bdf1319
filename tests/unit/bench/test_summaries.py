"""`regintel bench summaries` judges a summary's part-line by the register alone: the quote it
leads with must be an obligation of the register that binds, lifts no duty and lies in the
part."""

from __future__ import annotations

from uuid import uuid4

from regintel.bench import summaries
from regintel.domain.chat import Citation, Statement, SummaryPart, SummarySection
from regintel.domain.coverage import ObligationItem, ObligationRow, Strength

DOC = uuid4()
CHUNK = uuid4()
PART = "2. CLIENT CLASSIFICATION"


def _row(text: str, *, rule: str = "2.2.1", strength: Strength = "mandatory",
         modal: str = "must", section: str = f"{PART} › 2.2 Client categorisation",
         items: tuple[ObligationItem, ...] = (), chunk: bool = True) -> ObligationRow:
    return ObligationRow(id=uuid4(), document_id=DOC, rule=rule, section=section, text=text,
                         modal=modal, strength=strength, items=items,
                         chunk_ids=(CHUNK,) if chunk else ())


def _cite(quote: str, *, clause: str = "2.2.1", n: int = 1) -> Citation:
    return Citation(n=n, document_id=DOC, chunk_id=CHUNK, title="COBS", clause=clause,
                    quote=quote)


DUTY = _row("An Authorised Person must categorise each of its Clients as a Retail Client or "
            "a Professional Client.")
GUIDANCE = _row("An Authorised Person should review the categorisation of its Clients each "
                "year.", rule="2.2.1.Guidance.1", strength="recommendation", modal="should")
EXEMPTION = _row("An Authorised Person is not required to classify a Market Counterparty "
                 "again.", rule="2.1.2", strength="prohibition", modal="is not required to")
ELSEWHERE = _row("An Authorised Person must keep a record of each Client's categorisation "
                 "for six years.", rule="3.1.1", section="3. RECORD KEEPING › 3.1 Records")
LIST = _row("A Relevant Person must, in addition to CDD:", rule="8.4.1",
            items=(ObligationItem(label="(a)", text="obtain additional identification "
                                  "information on the customer;"),))
ROWS = [DUTY, GUIDANCE, EXEMPTION, ELSEWHERE, LIST]


def test_a_line_is_judged_by_the_register_row_it_quotes() -> None:
    assert summaries.judge(PART, _cite(f"2.2.1\t{DUTY.text}"), ROWS) == summaries.DUTY
    # A quote cut at the citation's length is still the row's.
    assert summaries.judge(PART, _cite(DUTY.text[:90]), ROWS) == summaries.DUTY
    assert summaries.judge(PART, _cite(GUIDANCE.text), ROWS) == summaries.NOT_BINDING
    assert summaries.judge(PART, _cite(EXEMPTION.text), ROWS) == summaries.EXEMPTION
    assert summaries.judge(PART, _cite(ELSEWHERE.text), ROWS) == summaries.OTHER_PART
    assert summaries.judge(PART, _cite("This chapter applies to an Authorised Person carrying "
                                       "on any Regulated Activity."), ROWS) \
        == summaries.NOT_IN_REGISTER
    assert summaries.judge(PART, None, ROWS) == summaries.NO_CITATION


def test_an_item_of_a_listed_duty_is_that_duty() -> None:
    item = _cite("(a) obtain additional identification information on the customer;",
                 clause="8.4.1")
    assert summaries.register_row(item, ROWS) == LIST
    # An item the register did not read, of a rule it holds with a list.
    later = _cite("(f) require the first payment to be carried out through an account in "
                  "the customer's name;", clause="8.4.1")
    assert summaries.register_row(later, ROWS) == LIST


def test_a_repeated_sentence_is_the_row_of_its_own_clause() -> None:
    twin = _row(DUTY.text, rule="14.7.7", section="14. CLIENT MONEY › 14.7 Agents",
                chunk=False)
    assert summaries.register_row(_cite(DUTY.text, clause="2.2.1"), [twin, DUTY]) == DUTY


def test_figures_pool_the_lines_and_count_the_parts_with_a_duty() -> None:
    section = SummarySection(document_id=DOC, title="COBS", overview="", parts=[
        SummaryPart(heading=PART, statement=Statement(text="…", citations=[1, 2])),
        SummaryPart(heading="3. RECORD KEEPING", statement=Statement(text="…",
                                                                      citations=[3])),
        SummaryPart(heading="4. INTERPRETATION", statement=Statement(text="…",
                                                                      citations=[4]))])
    citations = [_cite(DUTY.text, n=1), _cite(LIST.text, n=2), _cite(GUIDANCE.text, n=3),
                 _cite("In these Rules a reference to a Person includes a body corporate.",
                       n=4)]
    scored = summaries.score_section(section, citations, ROWS)
    verdicts = [line["verdict"] for line in scored["lines"]]
    assert verdicts == [summaries.DUTY, summaries.NOT_BINDING, summaries.NOT_IN_REGISTER]
    assert [line["others_cited"] for line in scored["lines"]] == [1, 0, 0]
    figures = summaries.figures_of(scored["lines"])
    assert figures["part_lines"] == 3 and figures["binding_duties"] == 1
    assert figures["share"] == 0.333
    # Parts 2 and 3 have a binding duty in the register; part 4 has none to state.
    assert figures["parts_with_a_duty"] == 2 and figures["share_of_parts_with_a_duty"] == 0.5
