"""Document names read as a compliance officer means them (issue 49), through the real
pipeline on both engines: an instrument the library lacks is said first and the library
answers; a slash-joined abbreviation is no name; "these rules" are the documents in front of
the user."""

from __future__ import annotations

from tests.chat.conftest import Conversation, Corpus


def _said_first(answer: str, name: str) -> bool:
    return answer.startswith(f"{name} is not in your library")


async def test_an_instrument_the_library_lacks_is_said_first_then_the_library_answers(
        conversation: Conversation, corpus: Corpus) -> None:
    r = await conversation.ask("What does MiFID II say about appointing a money laundering "
                               "reporting officer?")
    assert r.inference.confidence == "none" and not r.resolved_documents
    if r.needs_input is not None:  # little found: asked, with the name said first
        assert r.needs_input.kind == "low_confidence"
        assert r.answer.startswith("MiFID II is not in your library. ")
        return
    first = r.answer.split("\n\n")[0]
    assert first.startswith("MiFID II is not in your library; the answer below is from the "
                            "documents searched instead: ")
    assert corpus.aml.title in first and r.citations


async def test_a_named_document_the_library_lacks_is_no_question_back(
        conversation: Conversation, corpus: Corpus) -> None:
    # The spec's "FSA guidelines" after a turn on the AML rules: not an ask-back about the
    # conversation's documents, but the thread's document searched and the gap said.
    await conversation.ask("Summarize this regulation", tagged_doc_ids=[corpus.aml.id])
    r = await conversation.ask("What about the FSA guidelines?")
    assert r.needs_input is None or r.needs_input.kind == "low_confidence"
    assert _said_first(r.answer, "FSA guidelines")


async def test_a_slash_joined_abbreviation_is_not_a_document_name(
        conversation: Conversation) -> None:
    r = await conversation.ask("What do the KYC/CDD rules require?")
    assert r.inference.confidence == "none" and not r.resolved_documents
    assert r.needs_input is None or r.needs_input.kind == "low_confidence"
    assert "not in your library" not in r.answer


async def test_these_regulations_are_the_tagged_documents(conversation: Conversation,
                                                          corpus: Corpus) -> None:
    r = await conversation.ask("What do these regulations say about record keeping?",
                               tagged_doc_ids=[corpus.aml.id, corpus.gen.id])
    assert r.needs_input is None or r.needs_input.kind == "low_confidence"
    assert [(d.id, d.how) for d in r.resolved_documents] == [
        (corpus.aml.id, "explicit"), (corpus.gen.id, "explicit")]


async def test_these_rules_after_an_untagged_answer_are_the_documents_it_cited(
        conversation: Conversation, corpus: Corpus) -> None:
    first = await conversation.ask("What must an employee do if they suspect money "
                                   "laundering?")
    cited = list(dict.fromkeys(c.document_id for c in first.citations))
    assert cited and not first.resolved_documents
    r = await conversation.ask("What do these rules say about training?")
    assert r.needs_input is None or r.needs_input.kind == "low_confidence"
    assert r.inference.confidence == "high"
    assert [d.id for d in r.resolved_documents] == cited
