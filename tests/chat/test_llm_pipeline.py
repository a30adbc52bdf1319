"""The whole chat pipeline on the LLM engine, over the real OpenAI-compatible adapter talking
to a local stub server (the wire protocol, no network): streamed answers, routing and cost,
the egress guard, and every provider failure ending in a normal answer."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator

import pytest
from pydantic import SecretStr

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.bench.llm_stub import StubBehaviour, StubServer
from regintel.chat.service import ChatEvent, ChatService
from regintel.container import Container
from regintel.domain.chat import Action, ChatRequest, ChatResponse, Engine
from regintel.settings import LlmModel, LlmSettings, Settings
from tests.chat.conftest import Corpus
from tests.chat.test_actions import _all_quotes_verify
from tests.conftest import TEST_SECRET

QUESTION = "How long must a Relevant Person keep CDD records?"


@pytest.fixture(scope="module")
def stub() -> Iterator[StubServer]:
    with StubServer() as server:
        yield server


@pytest.fixture
def behaviour(stub: StubServer) -> StubBehaviour:
    stub.behaviour = StubBehaviour()
    return stub.behaviour


@pytest.fixture(scope="module")
async def llm_container(corpus: Corpus, data_dir: object, embedder: LocalEmbedder,
                        stub: StubServer) -> AsyncIterator[Container]:
    llm = LlmSettings(
        base_url=stub.base_url, api_key=SecretStr("sk-test"), external=True, timeout_s=1.0,
        models={"small": LlmModel(name="stub-small", input_usd_per_mtok=0.15,
                                  output_usd_per_mtok=0.60),
                "large": LlmModel(name="stub-large", input_usd_per_mtok=2.5,
                                  output_usd_per_mtok=10.0)})
    settings = Settings(data_dir=data_dir, database_url=SecretStr(corpus.url),
                        secret_key=SecretStr(TEST_SECRET), llm=llm)
    opened = await Container.open(settings, embedder=embedder)
    yield opened
    await opened.close()


@pytest.fixture(scope="module")
async def llm_chat(llm_container: Container) -> ChatService:
    return await llm_container.chat()


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
    # Deltas arrived word by word while the model generated, and spell the final answer.
    deltas = [e for e in events if e.kind == "text"]
    assert len(deltas) > 5 and _shown(events) == response.answer
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


@pytest.mark.parametrize("failure", ["error_500", "malformed_tool", "cut", "slow", "bad_json"])
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
