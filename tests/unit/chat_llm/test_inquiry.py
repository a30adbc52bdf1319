"""compose_inquiry — the turn's main call — over the scripted model: prose streamed a checked
statement at a time with evidence markers renumbered on the fly, quotes chosen from (and
verified against) real rulebook text, capture_concepts collected on the side, and every
failure ending in the offline answer with the streamed text withdrawn."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from regintel.chat.llm import prompts
from regintel.chat.llm.engine import LlmEngine, Step
from regintel.chat.llm.fake import Item, Pause, ScriptedChatModel, error, reply
from regintel.chat.llm.routing import Route, RouteName, TenantRoutes
from regintel.chat.llm.verified import leaked, phrases
from regintel.chat.offline.compose import CAUTION
from regintel.chat.offline.engine import OfflineEngine
from regintel.chat.streaming import AnswerStream
from regintel.domain.documents import ChunkHit
from regintel.ports.llm import ChatMessage, DoneChunk, TextChunk, ToolChunk, ToolSpec, Usage
from regintel.retrieval.evidence import CitationBook, verify

QUESTION = "What must a Relevant Person do when undertaking CDD?"


def _assert_offline_answer(engine: LlmEngine, book: CitationBook,
                           hits: Sequence[ChunkHit], answer: str) -> None:
    assert engine.name == "llm+fallback" and engine.fell_back
    assert [f.step for f in engine.fallbacks] == [Step.COMPOSE_INQUIRY]
    assert answer.startswith("Under ")
    by_chunk = {h.chunk_id: h for h in hits}
    assert book.citations and all(
        c.chunk_id is not None and verify(c.quote, by_chunk[c.chunk_id].text)
        for c in book.citations)


class Client:
    """What a client receives: text deltas and resets, in order."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def __call__(self, event: dict[str, Any]) -> None:
        self.events.append(event)

    @property
    def shown(self) -> str:
        text = ""
        for e in self.events:
            text = "" if e.get("reset") else text + e["text"]
        return text


CONCEPTS = {"concepts": [{"domain": "AML", "kind": "CDD", "jurisdiction": "AE-ADGM",
                          "prefLabel": "Customer Due Diligence"}]}


def _pieces(text: str, size: int = 7) -> list[Item]:
    """The answer in small deltas, so markers arrive split ("[", "2", "]")."""
    return [TextChunk(text=text[i:i + size]) for i in range(0, len(text), size)]


async def test_streamed_answer_is_renumbered_cited_and_captures_concepts(
        hits: list[ChunkHit], offline: OfflineEngine) -> None:
    answer = ("A Relevant Person must identify the customer and verify its identity [2]. It "
              "must also monitor transactions for money laundering [3][2].")

    def script(messages: Sequence[ChatMessage]) -> list[Item]:
        user = messages[-1].content or ""
        # Evidence is numbered best first, with title, clause and page.
        assert "[1] Anti-Money Laundering and Sanctions Rules, clause 8.1.1, p. 10" in user
        assert "[2] Anti-Money Laundering and Sanctions Rules, clause 8.3.1, p. 11" in user
        return [*_pieces(answer[:60]), ToolChunk(id="c1", name="capture_concepts",
                                                 arguments=CONCEPTS),
                *_pieces(answer[60:]),
                DoneChunk(finish_reason="stop", usage=Usage(input_tokens=900, output_tokens=40))]

    model = ScriptedChatModel([script])
    engine = LlmEngine(model, offline)
    book, client = CitationBook(), Client()
    composed = await engine.compose_inquiry(QUESTION, hits, book, caution=False,
                                            stream=AnswerStream(client, prefix="Analyzing.\n\n"))
    # The second claim citing evidence 2 gets the sentence of it that fits that claim.
    assert composed.answer == answer.replace("[2]", "[1]", 1).replace("[3][2]", "[2][3]")
    assert client.shown == "Analyzing.\n\n" + composed.answer
    # Released a checked statement at a time, never a fragment of one.
    assert [e["text"] for e in client.events] == [
        "Analyzing.\n\n", "A Relevant Person must identify the customer and verify its "
        "identity [1].", " It must also monitor transactions for money laundering [2][3]."]
    assert composed.concepts == [CONCEPTS]
    by_chunk = {h.chunk_id: h for h in hits}
    # Each citation names the clause its quote sits under, not only the chunk's.
    assert [c.clause for c in book.citations] == ["8.3.1.(1)", "14.2.1", "8.3.1.(1)"]
    assert all(verify(c.quote, by_chunk[c.chunk_id].text) for c in book.citations
               if c.chunk_id is not None)
    assert "identify" in book.citations[0].quote.lower()
    assert book.dropped == 0 and engine.name == "llm" and engine.usage.output_tokens == 40
    call = model.calls[0]
    assert (call.messages[0].content or "").startswith("You are the Regulatory Intelligence")
    assert "capture_concepts" in (call.messages[0].content or "")
    assert [t.name for t in call.tools] == ["capture_concepts"]
    assert call.response_format is None and model.closed == 1


async def test_without_tool_support_no_tool_is_offered(
        hits: list[ChunkHit], offline: OfflineEngine) -> None:
    model = ScriptedChatModel([reply("Customers are identified and verified [2].")],
                              supports_tools=False)
    engine = LlmEngine(model, offline)
    composed = await engine.compose_inquiry(QUESTION, hits, CitationBook(), caution=False)
    assert composed.concepts is None and model.calls[0].tools == []
    assert "capture_concepts" not in (model.calls[0].messages[0].content or "")


async def test_marker_for_unknown_evidence_is_dropped(hits: list[ChunkHit],
                                                      offline: OfflineEngine) -> None:
    model = ScriptedChatModel([reply("CDD is required [9]. Customers are identified [2].")])
    engine = LlmEngine(model, offline)
    book = CitationBook()
    composed = await engine.compose_inquiry(QUESTION, hits, book, caution=False)
    assert composed.answer == "CDD is required . Customers are identified [1]."
    assert book.dropped == 1 and engine.name == "llm"


async def test_answer_without_citations_falls_back(hits: list[ChunkHit],
                                                   offline: OfflineEngine) -> None:
    model = ScriptedChatModel([reply("Relevant Persons must file reports within 24 hours.")])
    engine = LlmEngine(model, offline)
    book, client = CitationBook(), Client()
    composed = await engine.compose_inquiry(QUESTION, hits, book, caution=False,
                                            stream=AnswerStream(client))
    _assert_offline_answer(engine, book, hits, composed.answer)
    assert "24 hours" not in composed.answer
    assert client.events == []  # the uncited statement waited for a citation: never shown


async def test_error_mid_stream_withdraws_text_and_citations(
        hits: list[ChunkHit], offline: OfflineEngine) -> None:
    model = ScriptedChatModel([[*_pieces("Customers are identified [2]. And"), *error()]])
    engine = LlmEngine(model, offline)
    book, client = CitationBook(), Client()
    composed = await engine.compose_inquiry(QUESTION, hits, book, caution=False,
                                            stream=AnswerStream(client))
    _assert_offline_answer(engine, book, hits, composed.answer)
    assert "provider error" in engine.fallbacks[0].reason
    assert engine.record().notice == ("The model stopped with an error; this is the offline "
                                      "engine's answer.")
    assert client.events[-1] == {"reset": True} and client.shown == ""
    # The model's citation was taken back: the book holds exactly what the offline answer cites.
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", composed.answer)}
    assert cited == set(range(1, len(book.citations) + 1))


async def test_timeout_falls_back(hits: list[ChunkHit], offline: OfflineEngine) -> None:
    model = ScriptedChatModel([[TextChunk(text="Customers "), Pause(5.0)]])
    engine = LlmEngine(model, offline, timeout_s=0.05)
    book = CitationBook()
    composed = await engine.compose_inquiry(QUESTION, hits, book, caution=True)
    _assert_offline_answer(engine, book, hits, composed.answer)
    assert engine.fallbacks[0].reason == "timeout"
    assert engine.record().notice == ("The model did not finish in 0.05 s; this is the offline "
                                      "engine's answer.")
    assert model.closed == 1  # the abandoned stream was closed, not left to the GC
    assert composed.answer.endswith(CAUTION)


async def test_answer_cut_at_token_limit_falls_back(hits: list[ChunkHit],
                                                    offline: OfflineEngine) -> None:
    model = ScriptedChatModel([[TextChunk(text="CDD [2] requires"),
                                DoneChunk(finish_reason="length")]])
    engine = LlmEngine(model, offline)
    book = CitationBook()
    composed = await engine.compose_inquiry(QUESTION, hits, book, caution=False)
    _assert_offline_answer(engine, book, hits, composed.answer)


async def test_answer_run_past_its_statements_keeps_the_cited_ones(
        hits: list[ChunkHit], offline: OfflineEngine) -> None:
    """A small model that runs on to the token limit: its whole cited statements stand."""
    model = ScriptedChatModel([[TextChunk(text="Customers must be identified before "),
                                TextChunk(text="onboarding [2]. The firm also"),
                                DoneChunk(finish_reason="length")]])
    engine = LlmEngine(model, offline)
    book = CitationBook()
    composed = await engine.compose_inquiry(QUESTION, hits, book, caution=False)
    assert not engine.fell_back
    assert composed.answer == "Customers must be identified before onboarding [1]."
    assert [c.chunk_id for c in book.citations] == [hits[1].chunk_id]


async def test_caution_and_no_answer(hits: list[ChunkHit], offline: OfflineEngine) -> None:
    model = ScriptedChatModel([reply("Customers are identified [2, 1]."),
                               reply(prompts.NO_ANSWER)])
    engine = LlmEngine(model, offline)
    book = CitationBook()
    composed = await engine.compose_inquiry(QUESTION, hits, book, caution=True)
    assert composed.answer == f"Customers are identified [1][2].\n\n{CAUTION}"
    composed = await engine.compose_inquiry("What is the capital of France?", hits,
                                            CitationBook(), caution=True)
    assert composed.answer == prompts.NO_ANSWER
    assert engine.name == "llm"


async def test_no_evidence_needs_no_model(offline: OfflineEngine) -> None:
    model = ScriptedChatModel([])
    engine = LlmEngine(model, offline)
    composed = await engine.compose_inquiry(QUESTION, [], CitationBook(), caution=False)
    assert composed.answer.startswith("No passage")
    assert model.calls == [] and engine.name == "llm"


async def test_detail_tools_a_model_cannot_call_are_counted_and_its_answer_still_checked(
        hits: list[ChunkHit], offline: OfflineEngine) -> None:
    """The local model (llama.cpp cannot stream a ChatML model's tool calls): a project's
    detail tools are not offered, the turn counts that fallback once, and the answer faces
    the checks of any tool-less answer: one citing no evidence is the offline engine's."""
    async def run(name: str, arguments: dict[str, Any]) -> Any:
        raise AssertionError("no tool can be called")

    tool = ToolSpec(name="get_risk_details", description="A risk.",
                    parameters={"type": "object", "properties": {"id": {"type": "string"}}})
    model = ScriptedChatModel([reply("Customers are identified and verified [2]."),
                               reply("The project's open risk is the onboarding backlog.")],
                              supports_tools=False)
    engine = LlmEngine(model, offline)
    engine.offer_tools([tool], run)
    book = CitationBook()
    composed = await engine.compose_inquiry(QUESTION, hits, book, caution=False)
    assert composed.answer == "Customers are identified and verified [1]."
    assert model.calls[0].tools == [] and book.citations
    assert [f.step for f in engine.fallbacks] == [Step.DETAIL_TOOLS]
    assert engine.name == "llm+fallback"

    uncited = CitationBook()
    composed = await engine.compose_inquiry(QUESTION, hits, uncited, caution=False)
    assert [f.step for f in engine.fallbacks] == [Step.DETAIL_TOOLS, Step.COMPOSE_INQUIRY]
    assert composed.answer.startswith("Under ") and uncited.citations


async def test_offered_detail_tools_are_run_and_answered(hits: list[ChunkHit],
                                                         offline: OfflineEngine) -> None:
    risk = "3f0c2d1e-0000-4000-8000-000000000001"
    model = ScriptedChatModel([
        [ToolChunk(id="t1", name="get_risk_details", arguments={"id": risk}),
         ToolChunk(id="t2", name="get_risk_details", arguments={"id": "not-a-uuid"}),
         DoneChunk(finish_reason="tool_calls", usage=Usage(input_tokens=50, output_tokens=5))],
        reply(f"Risk [risk:{risk}] is open; customers must be identified [2].")])
    runs: list[tuple[str, dict[str, Any]]] = []

    async def run(name: str, arguments: dict[str, Any]) -> Any:
        runs.append((name, arguments))
        if arguments["id"] == "not-a-uuid":
            raise ValueError("badly formed id")
        return {"id": risk, "impact": "high", "mitigations": []}

    engine = LlmEngine(model, offline)
    tool = ToolSpec(name="get_risk_details", description="A risk.",
                    parameters={"type": "object", "properties": {"id": {"type": "string"}}})
    engine.offer_tools([tool], run)
    book = CitationBook()
    composed = await engine.compose_inquiry(QUESTION, hits, book, caution=False)
    assert composed.answer == f"Risk [risk:{risk}] is open; customers must be identified [1]."
    assert [a["id"] for _, a in runs] == [risk, "not-a-uuid"]
    second = model.calls[1].messages
    assert second[2].role == "assistant" and [c.id for c in second[2].tool_calls] == ["t1", "t2"]
    assert second[3].role == "tool" and '"impact": "high"' in (second[3].content or "")
    assert second[4].role == "tool" and "badly formed id" in (second[4].content or "")
    assert {t.name for t in model.calls[0].tools} == {"capture_concepts", "get_risk_details"}
    assert engine.name == "llm" and engine.usage.input_tokens == 150


async def test_a_small_models_answer_shows_only_checked_statements(
        hits: list[ChunkHit], offline: OfflineEngine) -> None:
    """A small local model's answer as the 0.5B model writes one: a supported statement, the
    worked example's words, a claim its citation does not hold. Each statement is shown only
    once checked; what the client saw arrive is exactly the answer, with no reset."""
    answer = ("A Relevant Person must identify the customer and verify the customer's "
              "identity [2].\n"
              "A member must return a book within 21 days of the loan [1].\n"
              "Relevant Persons may skip verification for trusted customers [2].\n"
              "A Relevant Person must monitor and detect suspicious activity [3].")
    small = Route(alias="local", model=ScriptedChatModel([[*_pieces(answer), DoneChunk()]]),
                  context_tokens=4096, output_tokens=320)
    engine = LlmEngine(TenantRoutes({r: small for r in RouteName}), offline)
    client = Client()
    book = CitationBook()
    composed = await engine.compose_inquiry(QUESTION, hits, book, caution=False,
                                            stream=AnswerStream(client))
    assert not engine.fell_back
    assert "book" not in composed.answer and "skip" not in composed.answer
    # The dropped statements' citations go with them: the numbers shown run 1, 2, … in
    # order, and each is a citation of the book (no "[1] … [3]" with no 2 in Sources).
    numbers = list(dict.fromkeys(int(n) for n in re.findall(r"\[(\d+)\]", composed.answer)))
    assert numbers == [c.n for c in book.citations] == list(range(1, len(numbers) + 1))
    assert composed.answer.startswith("A Relevant Person must identify the customer")
    assert re.search(r"monitor and detect suspicious activity \[\d\]\.$", composed.answer)
    assert client.shown == composed.answer and {"reset": True} not in client.events
    # The worked example is shown as an earlier exchange, marked as from another field.
    shown = [m.content or "" for m in small.model.calls[0].messages]  # type: ignore[attr-defined]
    assert any(prompts.EXAMPLE_QUESTION in m for m in shown)


def test_a_worked_examples_phrases_are_found_unless_the_evidence_says_them() -> None:
    example = phrases(prompts.EXAMPLE_ANSWER)
    assert leaked("Notify it within 21 days of the loan [2].", example)
    assert not leaked("Notify it within 21 days of the loan [2].", example,
                      phrases("The fee is due within 21 days of the loan."))
    assert not leaked("Records must be kept for six years [1].", example)
