"""Three-layer memory on real turns: the Q&A index answers "what did we discuss", long threads
roll older messages into a summary, and ``use_memory=false`` leaves no trace."""

from __future__ import annotations

from regintel.container import Container
from tests.chat.conftest import Conversation, Corpus


async def test_what_did_we_discuss_uses_the_qa_index(conversation: Conversation,
                                                     container: Container,
                                                     corpus: Corpus) -> None:
    first = await conversation.ask("How long must CDD records be kept?")
    await conversation.ask("What are the responsibilities of the MLRO?")
    r = await conversation.ask("What did we discuss about records?")
    assert "How long must CDD records be kept?" in r.answer
    assert first.context["exchange_id"] in r.context["past_exchanges"]  # type: ignore[operator]
    messages = await container.conversations.messages(corpus.tenant_id, r.thread_id)
    assert [m.role for m in messages] == ["user", "assistant"] * 3


async def test_long_threads_roll_into_a_summary(conversation: Conversation,
                                                container: Container, corpus: Corpus) -> None:
    questions = ["What is CDD?", "What is EDD?", "Who is a PEP?", "What is tipping off?",
                 "What is a Suspicious Activity Report?", "What is the MLRO?",
                 "What are sanctions obligations?", "What is simplified due diligence?",
                 "What is ongoing monitoring?"]
    for q in questions:
        r = await conversation.ask(q)
    memory = await container.conversations.memory(corpus.tenant_id, r.thread_id, window=10)
    assert memory.message_count == 18
    assert memory.summary_covers == 8  # 18 messages: all but the last 10
    assert "What is CDD?" in memory.summary and "ongoing monitoring" not in memory.summary


async def test_without_memory_nothing_is_stored(conversation: Conversation,
                                                container: Container, corpus: Corpus) -> None:
    r = await conversation.ask("What is CDD?", use_memory=False)
    assert r.citations and r.validation.sources.verified
    assert await container.conversations.messages(corpus.tenant_id, r.thread_id) == []


async def test_previous_answer_is_retrieved_with_its_citations(
        conversation: Conversation) -> None:
    first = await conversation.ask("How long must CDD records be kept?")
    again = await conversation.ask("Please repeat your previous answer.")
    assert again.answer == f"The previous answer was:\n\n{first.answer}"
    assert [c.quote for c in again.citations] == [c.quote for c in first.citations]
