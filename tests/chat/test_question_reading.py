"""How a question is read before the search: a follow-up keeps the thread's subject ("and who
has to approve the relationship?" after a question on politically exposed persons reaches the
rules on politically exposed persons, not correspondent banking), and a summary with a focus
reads what the document says on that focus."""

from __future__ import annotations

from regintel.chat.repeats import NOTHING_MORE
from regintel.chat.service import ChatService
from regintel.domain.chat import Action
from tests.chat.conftest import Conversation, Corpus


async def test_a_follow_up_is_searched_with_the_thread_subject(offline_chat: ChatService,
                                                               corpus: Corpus) -> None:
    thread = Conversation(offline_chat, corpus.tenant_id)
    first = await thread.ask("What must a Relevant Person do when a customer is a "
                             "politically exposed person?")
    assert first.action is Action.INQUIRE and first.citations
    second = await thread.ask("and who has to approve the business relationship?")
    assert second.action is Action.INQUIRE and second.citations
    clauses = [c.clause or "" for c in second.citations]
    # Alone, the follow-up reads as correspondent banking's approval (9.2.2, 9.3.1): with the
    # thread's question it stays on politically exposed persons.
    assert not any(c.startswith("9.") for c in clauses), clauses
    assert any("PEP" in f"{c.clause} {c.quote}" or "olitically" in f"{c.clause} {c.quote}"
               for c in second.citations), clauses


async def test_a_follow_up_is_led_by_the_rule_on_what_it_asks(offline_chat: ChatService,
                                                              corpus: Corpus) -> None:
    thread = Conversation(offline_chat, corpus.tenant_id)
    await thread.ask("What must an employee do if they suspect money laundering?")
    second = await thread.ask("and for how long must the records be kept?")
    lead = second.answer.split("\n")[0]
    # Led by the keeping of the reports' records (14.5.1): not by the earlier question's rule
    # (14.2.2, which the search with the thread's question ranks first), nor by the records
    # of another subject (training, 13.3.2).
    assert "14.5.1" in lead, lead
    assert "six years" in lead, lead


async def test_a_focused_summary_reads_its_focus(offline_chat: ChatService,
                                                corpus: Corpus) -> None:
    r = await Conversation(offline_chat, corpus.tenant_id).ask(
        "Summarise the rules on suspicious activity reports and tipping off",
        tagged_doc_ids=[corpus.aml.id])
    assert r.action is Action.SUMMARIZE and r.summary is not None
    assert r.context.get("summary_focus") == "suspicious activity reports tipping off"
    clauses = [c.clause or "" for c in r.citations]
    assert sum(c.startswith("14.") for c in clauses) >= 2, clauses  # the SAR chapter


async def test_a_requirement_question_is_not_answered_with_definitions(
        offline_chat: ChatService, corpus: Corpus) -> None:
    # As the browser sends it: the mention's markup in the message, its document tagged.
    r = await Conversation(offline_chat, corpus.tenant_id).ask(
        f"@[{corpus.aml.title}] What must a relevant person do before establishing a business "
        "relationship?", tagged_doc_ids=[corpus.aml.id])
    assert r.action is Action.INQUIRE and r.citations
    # The tag narrows the search; the title's words are not searched for, or the glossary
    # that defines them leads ("AML Return Means …", guidance on the term "customer").
    for c in r.citations:
        assert not c.clause or not c.clause.startswith("3."), [x.clause for x in r.citations]
        assert " Means " not in c.quote and " means " not in c.quote[:60], c.quote


async def test_a_follow_up_that_finds_nothing_new_says_so_and_claims_no_high_confidence(
        offline_chat: ChatService, corpus: Corpus) -> None:
    thread = Conversation(offline_chat, corpus.tenant_id)
    await thread.ask("Who has to be appointed as MLRO under the AML Rulebook?")
    second = await thread.ask("does that person have to live in the UAE?")
    # The rulebook's passages found say nothing of residence: the answer says it rests on
    # what was already shown, and its confidence cannot be High.
    assert NOTHING_MORE in second.answer, second.answer[:300]
    assert second.confidence is not None and second.confidence.tier != "high"
