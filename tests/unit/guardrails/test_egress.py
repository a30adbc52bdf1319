"""The egress guard over the real PII analyser and the scripted model: what the provider
receives carries no personal data, every message is covered, repeated prompts are scanned once,
and the model's stream comes back untouched."""

from __future__ import annotations

from regintel.chat.llm.egress import RedactingChatModel
from regintel.chat.llm.fake import ScriptedChatModel, reply
from regintel.guardrails.input import InputGuardrail
from regintel.ports.llm import ChatMessage, TextChunk

EVIDENCE = ("[1] Falcon Crest AML Policy, p. 3\nReports go to the MLRO, reachable at "
            "mlro.office@falconcrest.ae or +971 50 123 4567.")


async def test_personal_data_is_redacted_before_the_provider_sees_it(
        guardrail: InputGuardrail) -> None:
    inner = ScriptedChatModel([reply("Answer [1]."), reply("Again [1].")])
    scanned: list[str] = []

    def find_pii(text: str) -> list[tuple[str, int, int]]:
        scanned.append(text)
        return guardrail.find_pii(text)

    model = RedactingChatModel(inner, find_pii)
    messages = [ChatMessage(role="system", content="You are the copilot."),
                ChatMessage(role="user", content=f"Question: who receives reports?\n\n{EVIDENCE}")]
    chunks = [c async for c in model.stream(messages)]
    assert "".join(c.text for c in chunks if isinstance(c, TextChunk)) == "Answer [1]."
    sent = " ".join(m.content or "" for m in inner.calls[0].messages)
    assert "mlro.office@falconcrest.ae" not in sent and "123 4567" not in sent
    assert "<EMAIL_ADDRESS>" in sent and "Reports go to the MLRO" in sent
    assert model.redacted >= 2 and model.model_name == inner.model_name
    assert len(scanned) == 3  # the system prompt, then the user message paragraph by paragraph
    await anext(aiter(model.stream(messages)))  # the same prompt again: answered by the memo
    assert len(scanned) == 3 and inner.calls[1].messages == inner.calls[0].messages


async def test_evidence_scanned_ahead_is_not_scanned_again_when_sent(
        guardrail: InputGuardrail) -> None:
    inner = ScriptedChatModel([reply("Answer [1].")])
    scanned: list[str] = []

    def find_pii(text: str) -> list[tuple[str, int, int]]:
        scanned.append(text)
        return guardrail.find_pii(text)

    model = RedactingChatModel(inner, find_pii)
    await model.prewarm([f"Question: who receives reports?\n\n{EVIDENCE}"])
    assert scanned == ["Question: who receives reports?", EVIDENCE]
    # The call carries the same evidence under another system prompt: only that is new.
    await anext(aiter(model.stream([
        ChatMessage(role="system", content="You are the copilot.\n\n## User profile"),
        ChatMessage(role="user", content=f"Question: who receives reports?\n\n{EVIDENCE}")])))
    assert scanned[2:] == ["You are the copilot.", "## User profile"]
    sent = inner.calls[0].messages[1].content or ""
    assert "mlro.office@falconcrest.ae" not in sent and "<EMAIL_ADDRESS>" in sent
