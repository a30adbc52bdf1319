"""classify_intent, resolve_references, summarize_thread and rewrite_tone over the scripted
model: the happy path, and each failure ending in the offline engine's answer."""

from __future__ import annotations

from datetime import UTC, datetime
from uuid import uuid4

import pytest

from regintel.chat.llm.engine import LlmEngine, Step
from regintel.chat.llm.fake import Item, Pause, ScriptedChatModel, error, json_reply, reply
from regintel.chat.offline.engine import OfflineEngine
from regintel.domain.chat import Action
from regintel.domain.conversations import StoredMessage
from regintel.domain.documents import DocType
from regintel.ports.llm import TextChunk

from .conftest import document, ref

BANK = document("Bank Negara AML Guidelines 2024", DocType.REGULATION)
OURS = document("Our AML Policy")
OTHER = document("Our Sanctions Policy")
REGISTRY = [ref(BANK, 1), ref(OURS, 2), ref(OTHER, 2)]
AUDIT_MSG = "Does @OurAMLPolicy comply with the regulation above?"


def _failures() -> list[list[Item]]:
    return [error(), [TextChunk(text="{"), Pause(5.0)], reply("not json at all")]


# -- classify_intent --------------------------------------------------------------------------
async def test_intent_happy(offline: OfflineEngine) -> None:
    model = ScriptedChatModel([
        json_reply({"action": "audit", "confidence": 0.92, "reason": "asks about compliance"}),
        json_reply({"action": "compare", "confidence": 0.3, "reason": "unclear"})])
    engine = LlmEngine(model, offline)
    guess = await engine.classify_intent("Are we in line with the rules here?")
    assert (guess.action, guess.confident, guess.reason) == (
        Action.AUDIT, True, "asks about compliance")
    guess = await engine.classify_intent("policy and rules")
    assert (guess.action, guess.confident) == (Action.COMPARE, False)
    assert engine.name == "llm" and engine.usage.input_tokens == 200
    assert "Are we in line" in (model.calls[0].messages[1].content or "")


@pytest.mark.parametrize("failure", range(3), ids=["error", "timeout", "malformed"])
async def test_intent_failures_fall_back(offline: OfflineEngine, failure: int) -> None:
    engine = LlmEngine(ScriptedChatModel([_failures()[failure]]), offline,
                       timeout_s=0.05)
    guess = await engine.classify_intent("What about CDD for trusts?")
    assert guess == await offline.classify_intent("What about CDD for trusts?")
    assert engine.name == "llm+fallback" and engine.fallbacks[0].step is Step.CLASSIFY_INTENT


async def test_intent_outside_the_enum_falls_back(offline: OfflineEngine) -> None:
    engine = LlmEngine(ScriptedChatModel([json_reply(
        {"action": "delete", "confidence": 0.9, "reason": "x"})]), offline)
    guess = await engine.classify_intent("the two policies")
    assert guess.action is Action.INQUIRE and engine.name == "llm+fallback"


# -- resolve_references -----------------------------------------------------------------------
def _refs(ids: list[str], confidence: str, has: bool = True, **extra: object) -> list[Item]:
    return json_reply({"has_implicit_refs": has, "inferred_doc_ids": ids,
                       "inference_confidence": confidence, "reasoning": "r", **extra})


async def test_references_high_medium_low_none(offline: OfflineEngine) -> None:
    model = ScriptedChatModel([
        _refs([str(BANK.id), str(OURS.id)], "high"),
        _refs([str(OURS.id), str(OTHER.id)], "medium"),
        _refs([], "low", unmatched_name="FSA", unmatched_kind="regulation"),
        _refs([], "high", has=False)])
    engine = LlmEngine(model, offline)
    high = await engine.resolve_references(AUDIT_MSG, Action.AUDIT, [OURS], REGISTRY)
    # the tagged document is not "inferred" again
    assert (high.inference_confidence, high.inferred_doc_ids) == ("high", [str(BANK.id)])
    user = model.calls[0].messages[1].content or ""
    assert f"{BANK.id} | Bank Negara AML Guidelines 2024 | regulation | 1" in user
    assert f"{OURS.id} (Our AML Policy; policy)" in user
    medium = await engine.resolve_references("Audit it against the policy", Action.AUDIT,
                                             [BANK], REGISTRY)
    assert medium.inference_confidence == "medium" and medium.inferred_doc_ids == []
    assert medium.candidates == [str(OURS.id), str(OTHER.id)]
    low = await engine.resolve_references("What about the FSA guidelines?", Action.INQUIRE,
                                          [], REGISTRY)
    assert (low.inference_confidence, low.unmatched, low.unmatched_kind) == (
        "low", "FSA", "regulation")
    none = await engine.resolve_references("That's great, thanks", Action.INQUIRE, [], REGISTRY)
    assert (none.has_implicit_refs, none.inference_confidence) == (False, "none")
    assert engine.name == "llm"


async def test_reference_to_the_tagged_document_is_none(offline: OfflineEngine) -> None:
    engine = LlmEngine(ScriptedChatModel([_refs([str(BANK.id)], "high")]), offline)
    found = await engine.resolve_references("Summarize @Bank — this regulation",
                                            Action.SUMMARIZE, [BANK], REGISTRY)
    assert (found.inference_confidence, found.inferred_doc_ids) == ("none", [])
    assert engine.name == "llm"


@pytest.mark.parametrize("script", [
    _refs([str(uuid4())], "high"),                        # an id not in play
    _refs([str(BANK.id), "uuid-bank-negara"], "high"),    # one of them invented
    _refs([], "high"),                                     # high without a document
    _refs([], "medium"),                                   # medium without candidates
    _refs([str(BANK.id)], "certain"),                      # not a tier
], ids=["unknown-id", "partly-invented", "high-empty", "medium-empty", "bad-tier"])
async def test_references_invalid_fall_back(offline: OfflineEngine,
                                            script: list[Item]) -> None:
    engine = LlmEngine(ScriptedChatModel([script]), offline)
    found = await engine.resolve_references(AUDIT_MSG, Action.AUDIT, [OURS], REGISTRY)
    assert found == await offline.resolve_references(AUDIT_MSG, Action.AUDIT, [OURS], REGISTRY)
    assert found.inferred_doc_ids == [str(BANK.id)]  # the offline rules still resolve it
    assert engine.name == "llm+fallback"
    assert engine.fallbacks[0].step is Step.RESOLVE_REFERENCES


@pytest.mark.parametrize("failure", range(3), ids=["error", "timeout", "malformed"])
async def test_references_failures_fall_back(offline: OfflineEngine, failure: int) -> None:
    engine = LlmEngine(ScriptedChatModel([_failures()[failure]]), offline,
                       timeout_s=0.05)
    found = await engine.resolve_references(AUDIT_MSG, Action.AUDIT, [OURS], REGISTRY)
    assert found.inferred_doc_ids == [str(BANK.id)] and engine.fell_back


# -- summarize_thread -------------------------------------------------------------------------
def _messages() -> list[StoredMessage]:
    now = datetime.now(UTC)
    return [StoredMessage(id=uuid4(), role="user", content="What is CDD?", created_at=now),
            StoredMessage(id=uuid4(), role="assistant", content="CDD means customer due "
                          "diligence under AML 8.3 [1].", created_at=now)]


async def test_thread_summary(offline: OfflineEngine) -> None:
    model = ScriptedChatModel([json_reply({"summary": "- Asked: What is CDD? → AML 8.3"})])
    engine = LlmEngine(model, offline)
    assert await engine.summarize_thread("", _messages()) == "- Asked: What is CDD? → AML 8.3"
    assert "assistant: CDD means customer due diligence" in (
        model.calls[0].messages[1].content or "")


@pytest.mark.parametrize("failure", range(3), ids=["error", "timeout", "malformed"])
async def test_thread_summary_failures_fall_back(offline: OfflineEngine, failure: int) -> None:
    engine = LlmEngine(ScriptedChatModel([_failures()[failure]]), offline,
                       timeout_s=0.05)
    summary = await engine.summarize_thread("- Asked: earlier", _messages())
    assert summary == await offline.summarize_thread("- Asked: earlier", _messages())
    assert engine.name == "llm+fallback"


# -- rewrite_tone -----------------------------------------------------------------------------
async def test_tone_kept_when_appropriate_rewritten_otherwise(offline: OfflineEngine) -> None:
    model = ScriptedChatModel([
        json_reply({"appropriate": True, "rewritten": None, "adjustments": []}),
        json_reply({"appropriate": False, "rewritten": "I will check clause 8.3 [1].",
                    "adjustments": ["'Let me' → 'I will'"]})])
    engine = LlmEngine(model, offline)
    assert await engine.rewrite_tone("Clause 8.3 applies [1].") == (
        "Clause 8.3 applies [1].", [])
    assert await engine.rewrite_tone("Let me check clause 8.3 [1]!") == (
        "I will check clause 8.3 [1].", ["'Let me' → 'I will'"])
    assert engine.name == "llm"


@pytest.mark.parametrize("script", [
    json_reply({"appropriate": False, "rewritten": "I will check clause 8.3.",
                "adjustments": []}),                                   # lost its marker
    json_reply({"appropriate": False, "rewritten": None, "adjustments": []}),  # no rewrite
    error(), reply("{\"appropriate\": maybe}"),
], ids=["marker-lost", "no-rewrite", "error", "malformed"])
async def test_tone_failures_fall_back(offline: OfflineEngine, script: list[Item]) -> None:
    engine = LlmEngine(ScriptedChatModel([script]), offline)
    text, notes = await engine.rewrite_tone("Let me check clause 8.3 [1]!")
    assert (text, notes) == await offline.rewrite_tone("Let me check clause 8.3 [1]!")
    assert text.startswith("I will check") and engine.name == "llm+fallback"


async def test_nothing_in_play_needs_no_reference_call(offline: OfflineEngine) -> None:
    model = ScriptedChatModel([])
    engine = LlmEngine(model, offline)
    found = await engine.resolve_references("What about the FSA guidelines?", Action.INQUIRE,
                                            [], [])
    assert found.inference_confidence == "low" and found.unmatched == "FSA"
    assert model.calls == [] and engine.name == "llm"
