"""The engine's per-turn record, model selection, schema-in-prompt mode and the fake."""

from __future__ import annotations

import pytest

from regintel.chat.engine import ChatEngine
from regintel.chat.llm.engine import LlmEngine, Step
from regintel.chat.llm.fake import ScriptedChatModel, error, json_reply
from regintel.chat.llm.routing import LlmRouter, Price, Route, RouteName, TenantRoutes
from regintel.chat.offline.engine import OfflineEngine
from regintel.errors import ConfigurationError
from regintel.ports.llm import Usage

INTENT = {"action": "inquire", "confidence": 0.8, "reason": "a question"}


def routes(small: ScriptedChatModel, large: ScriptedChatModel) -> TenantRoutes:
    cheap = Route("small", small, Price(input_usd_per_mtok=0.15, output_usd_per_mtok=0.60))
    dear = Route("large", large, Price(input_usd_per_mtok=2.50, output_usd_per_mtok=10.0))
    return TenantRoutes({r: dear if r in (RouteName.AUDIT, RouteName.COMPARE_HOLISTIC)
                         else cheap for r in RouteName})


async def test_usage_and_cost_sum_calls_on_the_routed_model(offline: OfflineEngine) -> None:
    small = ScriptedChatModel([
        json_reply(INTENT, usage=Usage(input_tokens=120, output_tokens=15)),
        json_reply({"summary": "- Asked: x → y"}, usage=Usage(input_tokens=80, output_tokens=9)),
        error()], model_name="small-model")
    large = ScriptedChatModel([], model_name="large-model")
    engine: ChatEngine = LlmEngine(routes(small, large), offline)
    assert isinstance(engine, LlmEngine)  # and, statically, a ChatEngine
    await engine.classify_intent("What is CDD?")
    await engine.summarize_thread("", [])
    assert engine.usage == Usage(input_tokens=200, output_tokens=24)
    assert engine.cost_usd == pytest.approx((200 * 0.15 + 24 * 0.60) / 1e6)
    assert len(small.calls) == 2 and large.calls == [] and engine.models_used == ["small-model"]
    assert not engine.fell_back and engine.name == "llm"
    await engine.classify_intent("What is CDD?")  # fails: no usage, name flips for good
    assert engine.usage.input_tokens == 200 and engine.name == "llm+fallback"
    assert engine.fallbacks[0].step is Step.CLASSIFY_INTENT


async def test_confident_rules_spare_the_intent_call(offline: OfflineEngine) -> None:
    model = ScriptedChatModel([])
    engine = LlmEngine(model, offline)
    guess = await engine.classify_intent("Summarize the AML rulebook")
    assert guess.confident and model.calls == [] and engine.name == "llm"


def test_routes_name_only_configured_aliases() -> None:
    model = ScriptedChatModel([])
    with pytest.raises(ConfigurationError, match="unknown routes"):
        LlmRouter({"small": Route("small", model)}, {"compose_audit": "small"})
    with pytest.raises(ConfigurationError, match="does not define"):
        LlmRouter({"small": Route("small", model)}, {"audit": "large"})
    router = LlmRouter({"small": Route("small", model), "large": Route("large", model)},
                       {}, tenant_overrides={"acme": {"audit": "small"}})
    assert router.for_tenant("other")[RouteName.AUDIT].alias == "large"
    assert router.for_tenant("0000", "acme")[RouteName.AUDIT].alias == "small"


async def test_schema_goes_in_the_prompt_without_json_schema_support(
        offline: OfflineEngine) -> None:
    model = ScriptedChatModel([json_reply(INTENT)], supports_json_schema=False)
    engine = LlmEngine(model, offline)
    await engine.classify_intent("What is CDD?")
    system = model.calls[0].messages[0].content or ""
    assert "must match this JSON Schema" in system and '"confidence"' in system


async def test_fake_records_and_runs_out() -> None:
    model = ScriptedChatModel([json_reply(INTENT)], supports_tools=False)
    assert not model.supports_tools and model.supports_json_schema and model.remaining == 1
    assert [c async for c in model.stream([])][-1].type == "done"
    with pytest.raises(AssertionError, match="no scripted response left"):
        [c async for c in model.stream([])]
