"""Work started ahead of its node (``chat.prefetch``): a plain question is searched once, by the
search started as soon as it was screened; a turn whose scope changes on the way searches
again; a triage answer stops the intent call started ahead. Both engines, real retrieval."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

import pytest

from regintel.bench.llm_stub import StubBehaviour
from regintel.chat import prefetch
from regintel.chat.ahead import Searched
from regintel.chat.deps import TurnDeps
from regintel.chat.service import ChatService
from regintel.domain.chat import Action, ChatRequest, Engine
from tests.chat.conftest import Conversation, Corpus

QUESTION = "How long must a Relevant Person keep CDD records?"


@pytest.fixture
def searches(monkeypatch: pytest.MonkeyPatch) -> list[tuple[UUID, ...]]:
    """The scope of every knowledge-base search of the test (the searches themselves run)."""
    seen: list[tuple[UUID, ...]] = []
    search = prefetch.search

    async def counted(deps: TurnDeps, question: str, document_ids: Sequence[UUID],
                      set_ids: Sequence[UUID]) -> Searched:
        seen.append(tuple(document_ids))
        return await search(deps, question, document_ids, set_ids)

    monkeypatch.setattr(prefetch, "search", counted)
    return seen


async def test_a_plain_question_is_searched_once_ahead_of_its_node(
        chat: ChatService, corpus: Corpus, searches: list[tuple[UUID, ...]]) -> None:
    response = await chat.ask(corpus.tenant_id, ChatRequest(message=QUESTION))
    assert response.action is Action.INQUIRE and response.citations
    assert searches == [()]


async def test_a_document_the_first_question_names_is_the_scope_searched_ahead(
        chat: ChatService, corpus: Corpus, searches: list[tuple[UUID, ...]]) -> None:
    response = await chat.ask(corpus.tenant_id, ChatRequest(
        message="What do the AML rules say about the MLRO's annual report?"))
    assert [(d.id, d.how) for d in response.resolved_documents] == [(corpus.aml.id, "search")]
    assert searches == [(corpus.aml.id,)] and response.citations


async def test_a_scope_resolved_later_is_searched_again(
        conversation: Conversation, corpus: Corpus,
        searches: list[tuple[UUID, ...]]) -> None:
    await conversation.ask("Summarize this regulation", tagged_doc_ids=[corpus.aml.id])
    searches.clear()
    r = await conversation.ask("What does that regulation say about record keeping?")
    assert [(d.id, d.how) for d in r.resolved_documents] == [(corpus.aml.id, "inferred")]
    # The search started ahead covered the library; the inferred document is searched anew,
    # and the answer cites only it.
    assert searches == [(), (corpus.aml.id,)]
    assert r.citations and {c.document_id for c in r.citations} == {corpus.aml.id}


async def test_a_triage_answer_stops_the_intent_call_started_ahead(
        llm_chat: ChatService, corpus: Corpus, behaviour: StubBehaviour,
        searches: list[tuple[UUID, ...]]) -> None:
    behaviour.first_token_delay_s = 30.0  # the model would answer long after the turn ends
    response = await llm_chat.ask(corpus.tenant_id, ChatRequest(message="Good morning"))
    assert response.triage.route == "greeting" and response.triage.skip_llm
    # The intent call went out ahead and was cut off: the turn did not wait for it (it would
    # have timed out after a second and fallen back), and nothing was spent.
    assert response.engine is Engine.LLM and not response.context.get("fallbacks")
    assert not any(t.first_token for t in behaviour.timings)
    assert response.usage.input_tokens == 0 and response.usage.cost_usd == 0
