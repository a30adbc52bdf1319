"""compose_inquiry over the scripted model: quotes verified against real rulebook text,
evidence numbers renumbered to the book's, and every failure ending in the offline answer."""

from __future__ import annotations

import json
from collections.abc import Sequence

from regintel.chat.evidence import CitationBook, verify
from regintel.chat.llm import prompts
from regintel.chat.llm.engine import LlmEngine, Step
from regintel.chat.llm.fake import Item, Pause, ScriptedChatModel, error, json_reply, reply
from regintel.chat.offline.compose import CAUTION
from regintel.chat.offline.engine import OfflineEngine
from regintel.domain.documents import ChunkHit
from regintel.ports.llm import ChatMessage, DoneChunk, TextChunk

from .conftest import span

QUESTION = "What must a Relevant Person do when undertaking CDD?"


def _identify(hits: Sequence[ChunkHit]) -> str:
    return span(hits[1].text, "identify the customer and verify", "on behalf of the customer;")


def _monitor(hits: Sequence[ChunkHit]) -> str:
    return span(hits[2].text, "A Relevant Person must establish", "terrorist financing.")


def _assert_offline_answer(engine: LlmEngine, book: CitationBook,
                           hits: Sequence[ChunkHit], answer: str) -> None:
    assert engine.name == "llm+fallback" and engine.fell_back
    assert [f.step for f in engine.fallbacks] == [Step.COMPOSE_INQUIRY]
    assert answer.startswith("Based on the retrieved provisions")
    by_chunk = {h.chunk_id: h for h in hits}
    assert book.citations and all(
        c.chunk_id is not None and verify(c.quote, by_chunk[c.chunk_id].text)
        for c in book.citations)


async def test_answer_cites_verified_quotes_renumbered(
        hits: list[ChunkHit], offline: OfflineEngine) -> None:
    def answer(messages: Sequence[ChatMessage]) -> list[Item]:
        user = messages[-1].content or ""
        # Evidence is numbered best first, with title, clause and page.
        assert "[1] Anti-Money Laundering and Sanctions Rules, clause 8.1.1, p. 10" in user
        assert "[2] Anti-Money Laundering and Sanctions Rules, clause 8.3.1, p. 11" in user
        return json_reply({
            "answer": "A Relevant Person must identify and verify the customer [2]. It must "
                      "also monitor for suspicious activity [3].",
            "quotes": [{"n": 2, "quote": _identify(hits)}, {"n": 3, "quote": _monitor(hits)}]})

    model = ScriptedChatModel([answer])
    engine = LlmEngine(model, offline)
    book = CitationBook()
    assert book.cite(hits[0], span(hits[0].text, "A Relevant Person that is an Authorised",
                                   "where the Relevant Person:")) == 1
    composed = await engine.compose_inquiry(QUESTION, hits, book, caution=False)
    assert composed.answer == ("A Relevant Person must identify and verify the customer [2]. "
                               "It must also monitor for suspicious activity [3].")
    assert [c.quote for c in book.citations[1:]] == [_identify(hits), _monitor(hits)]
    assert [c.clause for c in book.citations[1:]] == ["8.3.1", "14.2"]
    assert book.dropped == 0 and engine.name == "llm" and not engine.fell_back
    system = model.calls[0].messages[0].content or ""
    assert system.startswith("You are the Regulatory Intelligence Copilot")
    assert model.calls[0].response_format is not None
    assert model.calls[0].response_format.name == "compose_inquiry"
    assert model.closed == 1


async def test_unverifiable_quote_is_dropped_and_its_marker_removed(
        hits: list[ChunkHit], offline: OfflineEngine) -> None:
    book = CitationBook()
    model = ScriptedChatModel([json_reply({
        "answer": "Customers must be identified [2]. Records must be kept for ten years [1]. "
                  "Suspicious activity must be monitored [3].",
        "quotes": [{"n": 2, "quote": _identify(hits).replace("identify", "identifies")},
                   {"n": 1, "quote": "Records must be kept for ten years."},
                   {"n": 3, "quote": _monitor(hits)}]})])
    engine = LlmEngine(model, offline)
    composed = await engine.compose_inquiry(QUESTION, hits, book, caution=False)
    assert composed.answer == ("Customers must be identified. Records must be kept for ten "
                               "years. Suspicious activity must be monitored [1].")
    assert book.dropped == 2 and book.verified == 1
    assert book.citations[0].quote == _monitor(hits)
    assert engine.name == "llm"


async def test_no_verifiable_quote_falls_back(hits: list[ChunkHit],
                                             offline: OfflineEngine) -> None:
    model = ScriptedChatModel([json_reply({
        "answer": "Relevant Persons must file reports within 24 hours [1].",
        "quotes": [{"n": 1, "quote": "Relevant Persons must file reports within 24 hours."}]})])
    engine = LlmEngine(model, offline)
    book = CitationBook()
    composed = await engine.compose_inquiry(QUESTION, hits, book, caution=False)
    _assert_offline_answer(engine, book, hits, composed.answer)
    assert book.dropped >= 1
    assert "24 hours" not in composed.answer


async def test_markers_without_quotes_fall_back(hits: list[ChunkHit],
                                                offline: OfflineEngine) -> None:
    model = ScriptedChatModel([json_reply({"answer": "CDD is required [1][2].", "quotes": []})])
    engine = LlmEngine(model, offline)
    book = CitationBook()
    composed = await engine.compose_inquiry(QUESTION, hits, book, caution=False)
    _assert_offline_answer(engine, book, hits, composed.answer)


async def test_quote_for_unknown_evidence_is_dropped(hits: list[ChunkHit],
                                                     offline: OfflineEngine) -> None:
    model = ScriptedChatModel([json_reply({
        "answer": "CDD is required [9]. Customers are identified [2].",
        "quotes": [{"n": 9, "quote": "CDD is required."}, {"n": 2, "quote": _identify(hits)}]})])
    engine = LlmEngine(model, offline)
    book = CitationBook()
    composed = await engine.compose_inquiry(QUESTION, hits, book, caution=False)
    assert composed.answer == "CDD is required. Customers are identified [1]."
    assert book.dropped == 1 and engine.name == "llm"


async def test_error_chunk_falls_back(hits: list[ChunkHit], offline: OfflineEngine) -> None:
    engine = LlmEngine(ScriptedChatModel([error()]), offline)
    book = CitationBook()
    composed = await engine.compose_inquiry(QUESTION, hits, book, caution=False)
    _assert_offline_answer(engine, book, hits, composed.answer)
    assert "provider error" in engine.fallbacks[0].reason


async def test_timeout_falls_back(hits: list[ChunkHit], offline: OfflineEngine) -> None:
    model = ScriptedChatModel([[TextChunk(text='{"answer": '), Pause(5.0)]])
    engine = LlmEngine(model, offline, timeout_s=0.05)
    book = CitationBook()
    composed = await engine.compose_inquiry(QUESTION, hits, book, caution=True)
    _assert_offline_answer(engine, book, hits, composed.answer)
    assert engine.fallbacks[0].reason == "timeout"
    assert model.closed == 1  # the abandoned stream was closed, not left to the GC
    assert composed.answer.endswith(CAUTION)


async def test_malformed_json_falls_back(hits: list[ChunkHit], offline: OfflineEngine) -> None:
    for bad in ('{"answer": "CDD is required [1]"', '{"answer": "x"}', "Sure! CDD is [1]."):
        engine = LlmEngine(ScriptedChatModel([reply(bad)]), offline)
        book = CitationBook()
        composed = await engine.compose_inquiry(QUESTION, hits, book, caution=False)
        _assert_offline_answer(engine, book, hits, composed.answer)
        assert engine.fallbacks[0].reason.startswith("malformed output")


async def test_answer_cut_at_token_limit_falls_back(hits: list[ChunkHit],
                                                    offline: OfflineEngine) -> None:
    payload = json.dumps({"answer": "CDD [2].", "quotes": [{"n": 2, "quote": _identify(hits)}]})
    model = ScriptedChatModel([[TextChunk(text=payload), DoneChunk(finish_reason="length")]])
    engine = LlmEngine(model, offline)
    book = CitationBook()
    composed = await engine.compose_inquiry(QUESTION, hits, book, caution=False)
    _assert_offline_answer(engine, book, hits, composed.answer)


async def test_fenced_json_caution_and_no_answer(hits: list[ChunkHit],
                                                offline: OfflineEngine) -> None:
    fenced = "```json\n" + json.dumps({"answer": "Customers are identified [2].",
                                       "quotes": [{"n": 2, "quote": _identify(hits)}]}) + "\n```"
    model = ScriptedChatModel([reply(fenced),
                               json_reply({"answer": prompts.NO_ANSWER, "quotes": []})])
    engine = LlmEngine(model, offline)
    book = CitationBook()
    composed = await engine.compose_inquiry(QUESTION, hits, book, caution=True)
    assert composed.answer == f"Customers are identified [1].\n\n{CAUTION}"
    composed = await engine.compose_inquiry("What is the capital of France?", hits, book,
                                            caution=False)
    assert composed.answer == prompts.NO_ANSWER
    assert engine.name == "llm" and len(book.citations) == 1


async def test_no_evidence_needs_no_model(offline: OfflineEngine) -> None:
    model = ScriptedChatModel([])
    engine = LlmEngine(model, offline)
    composed = await engine.compose_inquiry(QUESTION, [], CitationBook(), caution=False)
    assert composed.answer.startswith("No passage")
    assert model.calls == [] and engine.name == "llm"
