"""The engine's per-turn record, model selection, schema-in-prompt mode and the fake."""

from __future__ import annotations

import pytest

from regintel.chat.engine import ChatEngine
from regintel.chat.evidence import CitationBook
from regintel.chat.llm.engine import LlmEngine, Step
from regintel.chat.llm.fake import ScriptedChatModel, error, json_reply
from regintel.chat.offline.engine import OfflineEngine
from regintel.domain.documents import ChunkHit
from regintel.ports.llm import Usage

from .conftest import AML_ID, document

INTENT = {"action": "inquire", "confidence": 0.8, "reason": "a question"}


async def test_usage_sums_calls_and_models_pick_per_step(offline: OfflineEngine) -> None:
    model = ScriptedChatModel([
        json_reply(INTENT, usage=Usage(input_tokens=120, output_tokens=15)),
        json_reply({"summary": "- Asked: x → y"}, usage=Usage(input_tokens=80, output_tokens=9)),
        error()])
    engine: ChatEngine = LlmEngine(model, offline, models={"classify_intent": "small-model"})
    assert isinstance(engine, LlmEngine)  # and, statically, a ChatEngine
    await engine.classify_intent("What is CDD?")
    await engine.summarize_thread("", [])
    assert engine.usage == Usage(input_tokens=200, output_tokens=24)
    assert [c.model for c in model.calls] == ["small-model", None]
    assert not engine.fell_back and engine.name == "llm"
    await engine.classify_intent("What is CDD?")  # fails: no usage, name flips for good
    assert engine.usage.input_tokens == 200 and engine.name == "llm+fallback"
    assert engine.fallbacks[0].step is Step.CLASSIFY_INTENT


def test_unknown_step_in_models_is_a_caller_mistake(offline: OfflineEngine) -> None:
    with pytest.raises(ValueError, match="unknown engine steps"):
        LlmEngine(ScriptedChatModel([]), offline, models={"compose_audit": "big"})


async def test_schema_goes_in_the_prompt_without_json_schema_support(
        offline: OfflineEngine) -> None:
    model = ScriptedChatModel([json_reply(INTENT)], supports_json_schema=False)
    engine = LlmEngine(model, offline)
    await engine.classify_intent("What is CDD?")
    system = model.calls[0].messages[0].content or ""
    assert "must match this JSON Schema" in system and '"confidence"' in system


async def test_summary_and_comparison_are_delegated(
        offline: OfflineEngine, hits: list[ChunkHit]) -> None:
    model = ScriptedChatModel([])
    engine = LlmEngine(model, offline)
    aml = document("Anti-Money Laundering and Sanctions Rules", doc_id=AML_ID)
    composed = await engine.compose_summary([aml], {AML_ID: hits}, CitationBook())
    assert composed.summary is not None and model.calls == []
    assert engine.name == "llm+fallback"
    assert [(f.step, f.reason) for f in engine.fallbacks] == [(Step.COMPOSE_SUMMARY, "delegated")]


async def test_fake_records_and_runs_out() -> None:
    model = ScriptedChatModel([json_reply(INTENT)], supports_tools=False)
    assert not model.supports_tools and model.supports_json_schema and model.remaining == 1
    assert [c async for c in model.stream([])][-1].type == "done"
    with pytest.raises(AssertionError, match="no scripted response left"):
        [c async for c in model.stream([])]
