"""The whole chat pipeline on the LLM engine, over the real OpenAI-compatible adapter talking
to a local stub server (the wire protocol, no network): streamed answers, routing and cost,
the egress guard, and every provider failure ending in a normal answer."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.bench.llm_stub import StubBehaviour, StubServer
from regintel.chat import web as web_module
from regintel.chat.service import ChatEvent, ChatService
from regintel.container import Container
from regintel.domain.chat import Action, ChatRequest, ChatResponse, Engine
from regintel.settings import Settings, WebSearchSettings
from tests.chat.conftest import Corpus
from tests.chat.test_actions import _all_quotes_verify
from tests.conftest import TEST_SECRET

QUESTION = "How long must a Relevant Person keep CDD records?"


async def _events(chat: ChatService, corpus: Corpus, message: str,
                  **fields: object) -> list[ChatEvent]:
    request = ChatRequest.model_validate({"message": message, **fields})
    return [e async for e in chat.stream(corpus.tenant_id, request)]


def _shown(events: list[ChatEvent]) -> str:
    text = ""
    for e in events:
        if e.kind == "status" and e.data.get("reset"):
            text = ""
        elif e.kind == "text":
            text += e.data
    return text


async def test_answer_streams_from_the_model_with_verified_citations_and_cost(
        llm_chat: ChatService, llm_container: Container, corpus: Corpus,
        behaviour: StubBehaviour) -> None:
    events = await _events(llm_chat, corpus, QUESTION)
    response: ChatResponse = events[-1].data
    assert events[-1].kind == "meta" and response.engine is Engine.LLM
    assert response.action is Action.INQUIRE
    # Deltas arrived a checked statement at a time while the model generated, were never
    # taken back, and spell the final answer.
    deltas = [e.data for e in events if e.kind == "text"]
    assert len(deltas) >= 2 and _shown(events) == response.answer
    assert not any(e.kind == "status" and e.data.get("reset") for e in events)
    await _all_quotes_verify(llm_container, corpus, response)
    assert response.usage.input_tokens > 0 and response.usage.cost_usd > 0
    assert response.context["models"] == ["stub-small"]
    main = [r for r in behaviour.requests if r.get("tools")]
    assert len(main) == 1 and main[0]["model"] == "stub-small"
    assert main[0]["tools"][0]["function"]["name"] == "capture_concepts"
    assert main[0]["stream"] is True


async def test_no_personal_data_from_a_question_reaches_an_external_provider(
        llm_chat: ChatService, corpus: Corpus, behaviour: StubBehaviour) -> None:
    secrets = ["mlro.office@falconcrest.ae", "+971 50 123 4567",
               "AE070331234567890123456", "4111 1111 1111 1111"]
    await _events(llm_chat, corpus, f"Our MLRO ({secrets[0]}, {secrets[1]}) asks how long "
                  f"CDD records for IBAN {secrets[2]} and card {secrets[3]} must be kept.")
    sent = json.dumps(behaviour.requests)
    assert behaviour.requests
    for secret in secrets:
        assert secret not in sent and secret.replace(" ", "") not in sent


@pytest.mark.parametrize("failure", ["error_500", "rate_limit", "malformed_tool", "cut", "slow",
                                     "bad_json"])
async def test_every_provider_failure_ends_in_a_normal_answer(
        llm_chat: ChatService, llm_container: Container, corpus: Corpus,
        behaviour: StubBehaviour, failure: str) -> None:
    behaviour.failure = failure  # type: ignore[assignment]
    behaviour.failures_left = 100
    events = await _events(llm_chat, corpus, QUESTION)
    response: ChatResponse = events[-1].data
    assert response.engine is Engine.LLM_FALLBACK
    fallbacks = response.context["fallbacks"]
    assert isinstance(fallbacks, list) and fallbacks
    if any(f.startswith("compose_inquiry") for f in fallbacks):  # the offline answer
        assert "six years" in " ".join(c.quote for c in response.citations)
    assert _shown(events) == response.answer
    await _all_quotes_verify(llm_container, corpus, response)


@pytest.fixture(scope="module")
async def web_chat(corpus: Corpus, data_dir: Path, embedder: LocalEmbedder,
                   stub: StubServer) -> AsyncIterator[ChatService]:
    """The offline engine with web search configured (Tavily's wire format, on the stub)."""
    settings = Settings(data_dir=data_dir, database_url=SecretStr(corpus.url),
                        secret_key=SecretStr(TEST_SECRET), web_search=WebSearchSettings(
                            tavily_api_key=SecretStr("tvly-test"),
                            base_url=stub.base_url.removesuffix("/v1")))
    opened = await Container.open(settings, embedder=embedder)
    yield await opened.chat()
    await opened.close()


async def test_temporal_question_adds_cited_web_results(
        web_chat: ChatService, corpus: Corpus, behaviour: StubBehaviour) -> None:
    events = await _events(web_chat, corpus, "What are the latest 2026 AML requirements for "
                           "customer due diligence?")
    response: ChatResponse = events[-1].data
    web = [c for c in response.citations if c.source_type == "web"]
    assert web and web[0].url == "https://www.adgm.com/news/aml-2026"
    assert f"[{web[0].n}]" in response.answer and "From the web:" in response.answer
    assert any(c.source_type == "document" for c in response.citations)
    assert behaviour.searches and "2026" in behaviour.searches[0]["query"]
    assert _shown(events) == response.answer


async def test_spent_web_plan_shows_the_limit_message(
        web_chat: ChatService, corpus: Corpus, behaviour: StubBehaviour) -> None:
    behaviour.web_status = 432
    response: ChatResponse = (await _events(
        web_chat, corpus, "What is the current CDD record-keeping period?"))[-1].data
    assert "⚠️ Web Search Limit Reached (1000/month)" in _notices(response)
    assert response.answer and not any(c.source_type == "web" for c in response.citations)


async def test_without_a_key_web_search_is_shown_unavailable(
        llm_chat: ChatService, corpus: Corpus) -> None:
    response: ChatResponse = (await _events(
        llm_chat, corpus, QUESTION, enable_web_search=True))[-1].data
    assert web_module.UNAVAILABLE in _notices(response)


def _notices(response: ChatResponse) -> list[str]:
    notices = response.context.get("notices", [])
    assert isinstance(notices, list)
    return [str(n) for n in notices]
