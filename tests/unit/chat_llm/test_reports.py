"""compose_summary and compose_comparison over the scripted model: evidence numbers mapped to
citations whose quotes are cut from (and verified against) real rulebook text, each comparison
mode on its route, and every answer that cannot be mapped faithfully ending in the offline
engine's report, with the rejected answer's citations taken back."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any
from uuid import UUID, uuid4

import pytest

from regintel.chat.llm import prompts
from regintel.chat.llm.engine import LlmEngine, Step
from regintel.chat.llm.fake import Item, ScriptedChatModel, json_reply, reply
from regintel.chat.llm.routing import Price, Route, RouteName, TenantRoutes
from regintel.chat.offline.engine import OfflineEngine
from regintel.domain.documents import ChunkHit, DocType
from regintel.retrieval.evidence import CitationBook, verify

from .conftest import AML_ID, document

Payload = dict[str, Any]
AML = document("Anti-Money Laundering and Sanctions Rules", DocType.REGULATION, doc_id=AML_ID)
POLICY_ID = UUID("00000000-0000-4000-8000-00000000a002")
POLICY = document("Our AML Policy", doc_id=POLICY_ID)
TOPIC = "customer due diligence"


def _policy(hits: list[ChunkHit]) -> list[ChunkHit]:
    """The same provisions as a second document (the scripted model only needs ids)."""
    return [h.model_copy(update={"document_id": POLICY_ID, "document_title": POLICY.title,
                                 "chunk_id": uuid4(), "doc_type": DocType.POLICY})
            for h in hits]


def _said(text: str, *evidence: int) -> Payload:
    return {"text": text, "evidence": list(evidence)}


SUMMARY: Payload = {"documents": [{
    "document_id": "D1",  # the label of its heading (the comparisons give the UUID)
    "overview": _said("The Rules set when and how a Relevant Person must undertake CDD.", 1),
    "key_obligations": [
        _said("A Relevant Person must undertake CDD where it establishes a business "
              "relationship with a customer [1].", 1),
        _said("In undertaking CDD it must identify the customer and verify the customer's "
              "identity.", 2),
        _said("It must establish and maintain policies, procedures, systems and controls to "
              "monitor and detect suspicious activity.", 3, 3)]}]}

FOCUSED: Payload = {
    "rows": [{"aspect": TOPIC, "differs": False, "cells": [
        {"document_id": str(AML_ID), "addressed": True, "evidence": [2],
         "text": "A Relevant Person must identify the customer and verify its identity."},
        {"document_id": str(POLICY_ID), "addressed": False, "text": "", "evidence": []}]}],
    "differences": [],
    "similarities": [_said("Both require the customer's identity to be verified.", 2, 5)]}

HOLISTIC: Payload = {
    "overview": _said("Both documents set customer due diligence obligations.", 1, 4),
    "differences": [_said("Only the Rules name the suspicious activity controls.", 3)],
    "similarities": [],
    "unique": [{"document_id": str(AML_ID), "points": [
        _said("A Relevant Person must have policies to discipline an Employee who fails to "
              "report.", 3)]}],
    "implications": [_said("A firm must monitor and detect suspicious activity.", 3, 6)]}


@pytest.fixture
def evidence(hits: list[ChunkHit]) -> dict[UUID, list[ChunkHit]]:
    return {AML_ID: hits, POLICY_ID: _policy(hits)}


def _routes(small: ScriptedChatModel, large: ScriptedChatModel) -> TenantRoutes:
    cheap, dear = Route("small", small, Price()), Route("large", large, Price())
    return TenantRoutes({r: dear if r is RouteName.COMPARE_HOLISTIC else cheap
                         for r in RouteName})


def _quotes_verify(book: CitationBook, hits: list[ChunkHit]) -> None:
    by_chunk = {h.chunk_id: h for h in hits}
    assert book.citations and book.dropped == 0
    for c in book.citations:
        assert c.chunk_id is not None and verify(c.quote, by_chunk[c.chunk_id].text), c.quote


async def test_summary_maps_evidence_numbers_to_verified_citations(
        offline: OfflineEngine, hits: list[ChunkHit]) -> None:
    model = ScriptedChatModel([json_reply(SUMMARY)])
    engine = LlmEngine(model, offline)
    book = CitationBook()
    composed = await engine.compose_summary([AML], {AML_ID: hits}, book)
    assert engine.name == "llm" and not engine.fell_back
    assert composed.summary is not None
    [section] = composed.summary.sections
    assert section.document_id == AML_ID and section.overview.startswith("The Rules set")
    # The model's [n] is removed from its text: markers are the citation numbers, added here.
    assert section.key_obligations[0].text.endswith("with a customer.")
    assert [o.citations for o in section.key_obligations] == [[1], [2], [3]]
    _quotes_verify(book, hits)
    # Quotes are the chunk's own sentences nearest each statement, not the model's words.
    assert "identify the customer" in book.citations[1].quote
    assert "monitor and detect suspicious activity" in book.citations[2].quote
    assert composed.answer.splitlines()[:3] == [
        "## Anti-Money Laundering and Sanctions Rules (1)", "",
        "Overview: The Rules set when and how a Relevant Person must undertake CDD. [1]"]
    assert "Key obligations:\n- A Relevant Person must undertake CDD" in composed.answer
    [call] = model.calls
    assert call.response_format is not None and call.response_format.name == "compose_summary"
    system, user = (m.content or "" for m in call.messages)
    assert prompts.SUMMARY_TASK in system and prompts.SUMMARY_TASK not in user
    assert f"### Document D1: {AML.title}, 1 (regulation)" in user
    # The schema holds the model to the ids and numbers it was shown.
    schema = call.response_format.json_schema
    assert schema["$defs"]["SummarySectionOutput"]["properties"]["document_id"]["enum"] == ["D1"]
    assert schema["$defs"]["CitedOutput"]["properties"]["evidence"]["items"]["enum"] == \
        list(range(1, user.count("\n[") + 1))
    assert "[3] Anti-Money Laundering and Sanctions Rules, clause 14.2, p. 12" in user


async def test_each_comparison_mode_runs_on_its_route(
        offline: OfflineEngine, evidence: dict[UUID, list[ChunkHit]]) -> None:
    small = ScriptedChatModel([json_reply(FOCUSED)], model_name="small-model")
    large = ScriptedChatModel([json_reply(HOLISTIC)], model_name="large-model")
    engine = LlmEngine(_routes(small, large), offline)
    every = [h for hs in evidence.values() for h in hs]

    book = CitationBook()
    focused = await engine.compose_comparison(f"Compare the {TOPIC}", [AML, POLICY], evidence,
                                              TOPIC, book)
    assert focused.comparison is not None and focused.comparison.mode == "focused"
    [row] = focused.comparison.table
    assert row.cells[1].text == "Not addressed." and row.cells[1].citation is None
    assert row.cells[0].citation == 1 and row.differs  # one document is silent
    assert focused.comparison.similarities[0].citations == [1, 2]
    assert focused.answer.startswith(f"Comparison of {TOPIC} across 2 documents:")
    _quotes_verify(book, every)

    book = CitationBook()
    holistic = await engine.compose_comparison("Compare these", [AML, POLICY], evidence, None,
                                               book)
    assert holistic.comparison is not None and holistic.comparison.mode == "holistic"
    assert holistic.comparison.unique == {
        str(AML_ID): holistic.comparison.unique[str(AML_ID)], str(POLICY_ID): []}
    assert "## Unique to each document" in holistic.answer
    _quotes_verify(book, every)

    assert (len(small.calls), len(large.calls)) == (1, 1) and engine.name == "llm"
    assert engine.models_used == ["small-model", "large-model"]
    assert prompts.COMPARE_HOLISTIC_TASK in (large.calls[0].messages[0].content or "")


def _changed(payload: Payload, change: Callable[[Payload], object]) -> list[Item]:
    changed = copy.deepcopy(payload)
    change(changed)
    return json_reply(changed)


def _obligation(p: Payload, i: int = 0) -> Payload:
    obligation: Payload = p["documents"][0]["key_obligations"][i]
    return obligation


SUMMARY_FAULTS: dict[str, tuple[list[Item], str]] = {
    "malformed JSON": (reply('{"documents": [{"document_id": '), "malformed output"),
    "invented number": (_changed(SUMMARY, lambda p: _obligation(p, 2).update(evidence=[4])),
                        "cites evidence [4], which was not shown"),
    "unknown document": (_changed(SUMMARY, lambda p: p["documents"][0].update(
        document_id=str(uuid4()))), "is not among the documents"),
    "unknown label": (_changed(SUMMARY, lambda p: p["documents"][0].update(
        document_id="D2")), "'D2' is not among the documents"),
    "not an id": (_changed(SUMMARY, lambda p: p["documents"][0].update(
        document_id="the AML Rules")), "is not a document id"),
    "uncited statement": (_changed(SUMMARY, lambda p: _obligation(p, 1).update(evidence=[])),
                          "a statement without a citation"),
    "only a marker": (_changed(SUMMARY, lambda p: _obligation(p).update(text="[1]")),
                      "an empty statement"),
    "no sections": (json_reply({"documents": []}), "no section for documents"),
    "empty section": (_changed(SUMMARY, lambda p: p["documents"][0].update(
        key_obligations=[])), "no key obligations"),
    "two sections": (_changed(SUMMARY, lambda p: p["documents"].append(p["documents"][0])),
                     "a second section"),
}


@pytest.mark.parametrize("fault", list(SUMMARY_FAULTS))
async def test_an_unfaithful_summary_ends_in_the_offline_one(
        offline: OfflineEngine, hits: list[ChunkHit], fault: str) -> None:
    script, reason = SUMMARY_FAULTS[fault]
    engine = LlmEngine(ScriptedChatModel([script]), offline)
    book = CitationBook()
    composed = await engine.compose_summary([AML], {AML_ID: hits}, book)
    assert engine.name == "llm+fallback"
    [fallback] = engine.fallbacks
    assert fallback.step is Step.COMPOSE_SUMMARY and reason in fallback.reason, fallback.reason
    expected = CitationBook()
    assert composed == await offline.compose_summary([AML], {AML_ID: hits}, expected)
    assert book.citations == expected.citations  # the rejected answer's citations are gone


def _cell(p: Payload, i: int = 0) -> Payload:
    cell: Payload = p["rows"][0]["cells"][i]
    return cell


COMPARISON_FAULTS: dict[str, tuple[Payload, Callable[[Payload], object], str]] = {
    "foreign evidence in a cell": (FOCUSED, lambda p: _cell(p).update(evidence=[4]),
                                   "of another document"),
    "unknown document in a cell": (FOCUSED, lambda p: _cell(p, 1).update(
        document_id=str(uuid4())), "is not among the documents"),
    "a document without a cell": (FOCUSED, lambda p: p["rows"][0]["cells"].pop(),
                                  "no cell for documents"),
    "nobody addresses the row": (FOCUSED, lambda p: _cell(p).update(addressed=False),
                                 "no document addresses"),
    "no differences or similarities": (FOCUSED, lambda p: p.update(similarities=[]),
                                       "neither differences nor similarities"),
    "invented number in an implication": (HOLISTIC, lambda p: p["implications"][0].update(
        evidence=[7]), "cites evidence [7], which was not shown"),
    "foreign evidence in a unique point": (HOLISTIC, lambda p: p["unique"][0]["points"][0]
                                           .update(evidence=[6]), "of another document"),
    "uncited overview": (HOLISTIC, lambda p: p["overview"].update(evidence=[]),
                         "a statement without a citation"),
}


@pytest.mark.parametrize("fault", list(COMPARISON_FAULTS))
async def test_an_unfaithful_comparison_ends_in_the_offline_one(
        offline: OfflineEngine, evidence: dict[UUID, list[ChunkHit]], fault: str) -> None:
    payload, change, reason = COMPARISON_FAULTS[fault]
    topic = TOPIC if payload is FOCUSED else None
    engine = LlmEngine(ScriptedChatModel([_changed(payload, change)]), offline)
    book = CitationBook()
    composed = await engine.compose_comparison("Compare", [AML, POLICY], evidence, topic, book)
    [fallback] = engine.fallbacks
    assert fallback.step is Step.COMPOSE_COMPARISON and reason in fallback.reason, \
        fallback.reason
    expected = CitationBook()
    assert composed == await offline.compose_comparison("Compare", [AML, POLICY], evidence,
                                                        topic, expected)
    assert book.citations == expected.citations


async def test_nothing_to_summarise_needs_no_call(offline: OfflineEngine) -> None:
    model = ScriptedChatModel([])
    engine = LlmEngine(model, offline)
    composed = await engine.compose_summary([AML], {}, CitationBook())
    assert composed.summary is not None and model.calls == [] and engine.name == "llm"
