"""The chat pipeline's LLM steps on the real local model (Qwen2.5-Coder-0.5B over llama.cpp's
server, started by the product): what a real small model does with our prompts, not what a
script says it does. A step the small model gets wrong must fall back, be counted and still
give a verified answer; the assertions say which steps must come from the model."""

from __future__ import annotations

import re

import httpx
import psutil

from regintel.adapters.llm import machine_speed
from regintel.adapters.llm.local_model import LocalServerChatModel
from regintel.chat.llm.engine import LlmEngine, Step
from regintel.chat.llm.routing import Route, RouteName, TenantRoutes
from regintel.chat.offline.engine import OfflineEngine
from regintel.chat.service import ChatEvent, ChatService
from regintel.container import Container
from regintel.domain.chat import Action, ChatRequest, ChatResponse, Engine, EngineChoice
from regintel.domain.documents import ChunkHit
from regintel.ontology.demo import seed_demo_project
from regintel.retrieval.evidence import CitationBook
from tests.chat.conftest import Conversation, Corpus
from tests.chat.local_model.conftest import TEST_OUTPUT, TEST_WINDOW
from tests.chat.test_actions import _all_quotes_verify

QUESTION = "How long must a Relevant Person keep CDD records?"
SHORT_POLICY = ("Falcon Crest keeps customer due diligence records for two years after the "
                "business relationship ends. Staff may skip identity verification for "
                "customers they know personally.")

CDD = {"domain": "AML", "kind": "CUSTOMER_DUE_DILIGENCE", "jurisdiction": "AE-ADGM",
       "prefLabel": "Customer Due Diligence",
       "definition": "Identifying and verifying a customer before and during a relationship."}


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


def _fallbacks(response: ChatResponse) -> list[str]:
    fallbacks = response.context.get("fallbacks", [])
    assert isinstance(fallbacks, list)
    return [str(f) for f in fallbacks]


async def test_inquiry_streams_the_models_tokens_with_verified_citations(
        local_chat: ChatService, local_container: Container, corpus: Corpus) -> None:
    events = await _events(local_chat, corpus, QUESTION)
    response: ChatResponse = events[-1].data
    assert response.action is Action.INQUIRE
    # The answer itself is the model's: no fallback of the main call.
    assert not any(f.startswith("compose_inquiry") for f in _fallbacks(response)), \
        _fallbacks(response)
    assert response.engine in (Engine.LLM, Engine.LLM_FALLBACK)
    assert response.context["models"] == ["qwen2.5-coder-0.5b-instruct-q4_k_m"]
    # Shown a checked statement at a time, and never taken back: what arrived is the answer.
    deltas = [e.data for e in events if e.kind == "text"]
    assert deltas and _shown(events) == response.answer
    assert not any(e.kind == "status" and e.data.get("reset") for e in events)
    assert all(re.search(r"(\]|[.;:!?])\s*$", d) or d.endswith("\n\n") for d in deltas), deltas
    assert re.search(r"\[\d+\]", response.answer)
    await _all_quotes_verify(local_container, corpus, response)
    assert response.usage.output_tokens > 0
    assert local_container.llm_status() == "ok"


async def test_concept_capture_falls_back_cleanly_without_template_tools(
        local_chat: ChatService, local_container: Container, corpus: Corpus) -> None:
    """llama.cpp's server cannot stream a ChatML model's tool calls, so the local model is
    not offered ``capture_concepts``: the offline extractor captures the turn's concepts,
    and the answer is still the model's."""
    # The extractor finds the concepts the graph knows (and terms the cited passages
    # define): the tenant's graph is given the one the question names, as an earlier turn's
    # capture would have, so what is checked is that the extractor ran on this turn.
    services = await local_container.concepts(corpus.tenant_id)
    known = await services.handler.handle({"concepts": [CDD]}, tenant_id=corpus.tenant_id)
    assert known.referencedNodeIds
    r = await Conversation(local_chat, corpus.tenant_id).ask(
        "What is customer due diligence and when must it be applied?")
    assert not any(f.startswith("compose_inquiry") for f in _fallbacks(r)), _fallbacks(r)
    assert set(known.referencedNodeIds) <= set(r.referenced_nodes), \
        "the offline extractor did not capture the concept the question names"
    await _all_quotes_verify(local_container, corpus, r)


async def test_a_projects_detail_tools_fall_back_cleanly_without_template_tools(
        local_chat: ChatService, local_container: Container, corpus: Corpus) -> None:
    """Nor is the local model offered a project's detail tools: a regulatory question in a
    project's thread counts the tool loop's fallback once, and the answer still arrives with
    every quote verified. (On this small window the project's block, up to 3,000 tokens,
    leaves the model's main call no room: it falls back too, counted, and the offline engine
    answers; the unit tests check the model's own tool-less answer is held to the checks.)"""
    seeded = await seed_demo_project(local_container.projects, corpus.tenant_id,
                                     regulation_ids=[corpus.aml.id])
    r = await Conversation(local_chat, corpus.tenant_id).ask(
        QUESTION, project_id=seeded["project"].id)
    assert "project" in str(r.context["aspects"])  # the project's snapshot was in the prompt
    assert r.engine is Engine.LLM_FALLBACK
    steps = [f.split(":")[0] for f in _fallbacks(r)]
    assert steps.count("detail_tools") == 1 and set(steps) <= {
        "detail_tools", "compose_inquiry", "classify_intent", "resolve_references"}, steps
    assert r.answer and r.citations
    assert "six years" in " ".join(c.quote for c in r.citations)
    await _all_quotes_verify(local_container, corpus, r)


async def test_summary_and_comparison_are_structured_by_the_model(
        local_chat: ChatService, local_container: Container, corpus: Corpus) -> None:
    """Schema-constrained JSON: the server's grammar makes the shape right; numbers the
    model invents or documents it confuses still fall back, counted."""
    summary = await Conversation(local_chat, corpus.tenant_id).ask(
        "Summarize", action=Action.SUMMARIZE, tagged_doc_ids=[corpus.policy.id])
    assert summary.summary is not None and summary.summary.sections
    await _all_quotes_verify(local_container, corpus, summary)
    comparison = await Conversation(local_chat, corpus.tenant_id).ask(
        "Compare the record-keeping periods", tagged_doc_ids=[corpus.policy.id, corpus.aml.id])
    assert comparison.comparison is not None
    await _all_quotes_verify(local_container, corpus, comparison)
    steps = {f.split(":")[0] for f in _fallbacks(summary) + _fallbacks(comparison)}
    # At least one of the two reports must have come from the model itself.
    assert not {"compose_summary", "compose_comparison"} <= steps, \
        (_fallbacks(summary), _fallbacks(comparison))


async def test_audit_of_a_short_policy_fits_the_window(
        local_chat: ChatService, local_container: Container, corpus: Corpus) -> None:
    r = await Conversation(local_chat, corpus.tenant_id).ask(
        f"Check this email against the AML rules: {SHORT_POLICY}", action=Action.AUDIT,
        tagged_doc_ids=[corpus.aml.id])
    assert r.audit is not None and r.audit.mode == "text"
    # Either the model's audit or the offline one, never an error; a window overflow
    # (HTTP 400 from the server) would show here as a provider error.
    assert not any("exceed" in f or "context" in f for f in _fallbacks(r)), _fallbacks(r)
    if r.audit.findings:
        await _all_quotes_verify(local_container, corpus, r)


async def test_a_cut_structured_answer_is_recovered_on_the_offline_engine(
        local_container: Container, corpus: Corpus) -> None:
    """Malformed output from the real model: a summary cut at 12 tokens is not valid JSON;
    the step falls back, is counted, and the offline summary stands in."""
    lease = local_container.local_model
    assert lease is not None
    async with httpx.AsyncClient() as client:
        capped = LocalServerChatModel(lease, model="capped", client=client, timeout_s=120,
                                      supports_tools=False, max_tokens=12)
        route = Route(alias="capped", model=capped, context_tokens=TEST_WINDOW,
                      output_tokens=TEST_OUTPUT)
        # The product's step timeout on the local model (a loaded CI machine's prefill
        # passed the default 30 s).
        engine = LlmEngine(TenantRoutes({r: route for r in RouteName}),
                           OfflineEngine(local_container.embedder),
                           timeout_s=local_container.settings.llm.local.timeout_s)
        chunks = await local_container.chunk_index.document_chunks(corpus.tenant_id,
                                                                   corpus.policy.id)
        samples = {corpus.policy.id: [ChunkHit.of(c, corpus.policy, 1.0) for c in chunks[:3]]}
        book = CitationBook()
        composed = await engine.compose_summary([corpus.policy], samples, book)
    assert engine.name == "llm+fallback"
    [fallback] = engine.fallbacks
    assert fallback.step is Step.COMPOSE_SUMMARY
    assert "token limit" in fallback.reason or "malformed" in fallback.reason, fallback
    assert composed.answer and book.citations


async def test_a_killed_server_mid_answer_falls_back_and_restarts_next_turn(
        local_chat: ChatService, local_container: Container, corpus: Corpus) -> None:
    lease = local_container.local_model
    assert lease is not None
    state = lease.ensure()
    request = ChatRequest.model_validate({"message": QUESTION})
    events: list[ChatEvent] = []
    killed = False
    async for event in local_chat.stream(corpus.tenant_id, request):
        events.append(event)
        if event.kind == "text" and not killed:
            psutil.Process(state.pid).kill()  # mid-answer: tokens are streaming
            killed = True
    assert killed
    response: ChatResponse = events[-1].data
    assert response.engine is Engine.LLM_FALLBACK
    assert any(f.startswith("compose_inquiry") for f in _fallbacks(response))
    assert "six years" in " ".join(c.quote for c in response.citations)
    assert _shown(events) == response.answer  # the model's partial text was taken back
    # The answer says first whose it is, and why; the badge names the offline engine.
    assert response.answer.startswith("The local model stopped with an error; this is the "
                                      "offline engine's answer."), response.answer[:200]
    assert response.context["answered_by"] == "offline"
    await _all_quotes_verify(local_container, corpus, response)
    # The next turn starts the server again and answers on the model.
    after = (await _events(local_chat, corpus, QUESTION))[-1].data
    new_state = lease.server.alive()
    assert new_state is not None and new_state.pid != state.pid
    assert not any(f.startswith("compose_inquiry") for f in _fallbacks(after)), \
        _fallbacks(after)


async def test_the_model_is_timed_on_this_machine_and_the_selector_says_so(
        local_container: Container) -> None:
    """First start on ``provider=local``: the model is timed once, kept in the data
    directory, and offered with what a typical turn costs here; a machine where the first
    token would take past 20 s keeps the offline engine as the default."""
    local_container._offered = None
    await local_container.measure_local_model()
    speed = machine_speed.stored(local_container.settings.data_dir,
                                 "qwen2.5-coder-0.5b-instruct-q4_k_m")
    assert speed is not None
    assert speed.prefill_tokens_per_s > 0 and speed.generation_tokens_per_s > 0
    estimate = machine_speed.Estimate.of(speed)
    [local] = [e for e in local_container.engines() if e.id is EngineChoice.LOCAL]
    assert local.label.endswith(f"— {estimate.words()}")
    expected = EngineChoice.OFFLINE if estimate.slow else EngineChoice.LOCAL
    assert local_container.default_engine is expected
    machine_speed.speed_file(local_container.settings.data_dir).unlink()
    local_container._offered = None  # the other tests run on the configured default
