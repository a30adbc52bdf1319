"""Summaries and comparisons on the LLM engine, through the whole pipeline over the stub model:
one structured call each, on its route, whose evidence numbers become citations with quotes cut
from (and verified against) the stored chunks; and every answer that cannot be mapped faithfully
ending in the offline engine's report."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from uuid import uuid4

import pytest

from regintel.bench.llm_stub import StubBehaviour
from regintel.bench.llm_stub_answers import structured_answer
from regintel.chat.llm import audit_plan, prompts
from regintel.chat.service import ChatService
from regintel.container import Container
from regintel.domain.chat import Action, ChatResponse, Engine
from tests.chat.conftest import Conversation, Corpus
from tests.chat.test_actions import _all_quotes_verify

Payload = dict[str, Any]


def _calls(behaviour: StubBehaviour, name: str) -> list[dict[str, Any]]:
    return [r for r in behaviour.requests
            if (r.get("response_format") or {}).get("json_schema", {}).get("name") == name]


def _fallbacks(response: ChatResponse) -> list[str]:
    fallbacks = response.context.get("fallbacks", [])
    assert isinstance(fallbacks, list)
    return [str(f) for f in fallbacks]


async def _summarize(chat: ChatService, corpus: Corpus) -> ChatResponse:
    return await Conversation(chat, corpus.tenant_id).ask(
        "Summarize", action=Action.SUMMARIZE, tagged_doc_ids=[corpus.policy.id, corpus.aml.id])


async def _compare(chat: ChatService, corpus: Corpus,
                   message: str = "Compare the record-keeping periods") -> ChatResponse:
    return await Conversation(chat, corpus.tenant_id).ask(
        message, tagged_doc_ids=[corpus.policy.id, corpus.aml.id])


async def test_summary_comes_from_the_model_with_verified_citations(
        llm_chat: ChatService, llm_container: Container, corpus: Corpus,
        behaviour: StubBehaviour) -> None:
    r = await _summarize(llm_chat, corpus)
    assert r.engine is Engine.LLM, _fallbacks(r)
    assert r.summary is not None
    assert [s.document_id for s in r.summary.sections] == [corpus.policy.id, corpus.aml.id]
    for section in r.summary.sections:
        assert section.overview and len(section.key_obligations) >= 3
        assert all(o.citations for o in section.key_obligations)
    await _all_quotes_verify(llm_container, corpus, r)
    # Each section cites only its own document.
    owner = {c.n: c.document_id for c in r.citations}
    for section in r.summary.sections:
        assert {owner[n] for o in section.key_obligations for n in o.citations} \
            == {section.document_id}
    # The offline engine's answer shape, so the UI and the CLI render it the same.
    assert r.answer.startswith(f"## {corpus.policy.title} ({corpus.policy.version})")
    assert r.answer.count("Overview: ") == 2 and r.answer.count("Key obligations:") == 2
    # One call on the summarize route, the evidence numbered under each document's label.
    [call] = _calls(behaviour, "compose_summary")
    assert call["model"] == "stub-small"
    system, user = (m["content"] for m in call["messages"])
    assert prompts.SUMMARY_TASK in system
    assert f"### Document D1: {corpus.policy.title}" in user and \
        f"### Document D2: {corpus.aml.title}" in user and "\n[1] " in user
    assert r.validation.sources.grounded, r.validation.sources.issues


async def test_focused_comparison_comes_from_the_model_as_a_difference_table(
        llm_chat: ChatService, llm_container: Container, corpus: Corpus,
        behaviour: StubBehaviour) -> None:
    r = await _compare(llm_chat, corpus)
    assert r.engine is Engine.LLM, _fallbacks(r)
    assert r.comparison is not None and r.comparison.mode == "focused"
    assert r.comparison.topic and r.comparison.topic in r.answer
    row = r.comparison.table[0]
    assert [c.document_id for c in row.cells] == [corpus.policy.id, corpus.aml.id]
    assert all(c.citation for c in row.cells)
    owner = {c.n: c.document_id for c in r.citations}
    assert all(owner[c.citation] == c.document_id for c in row.cells if c.citation)
    assert r.comparison.differences or r.comparison.similarities
    await _all_quotes_verify(llm_container, corpus, r)
    assert r.answer.startswith(f"Comparison of {r.comparison.topic} across 2 documents:")
    [call] = _calls(behaviour, "compose_comparison")
    assert call["model"] == "stub-small"  # compare_focused
    assert prompts.COMPARE_FOCUSED_TASK in call["messages"][0]["content"]


async def test_holistic_comparison_runs_on_the_holistic_route(
        llm_chat: ChatService, llm_container: Container, corpus: Corpus,
        behaviour: StubBehaviour) -> None:
    r = await _compare(llm_chat, corpus, "Compare these two documents")
    assert r.engine is Engine.LLM, _fallbacks(r)
    assert r.comparison is not None and r.comparison.mode == "holistic"
    assert r.comparison.overview and r.comparison.differences
    assert set(r.comparison.unique) == {str(corpus.policy.id), str(corpus.aml.id)}
    await _all_quotes_verify(llm_container, corpus, r)
    for heading in ("## Overview", "## Key differences", "## Similarities",
                    "## Unique to each document", "## Implications"):
        assert heading in r.answer
    [call] = _calls(behaviour, "compose_comparison")
    assert call["model"] == "stub-large"  # compare_holistic
    assert prompts.COMPARE_HOLISTIC_TASK in call["messages"][0]["content"]


def _malformed(payload: Payload) -> str:
    return json.dumps(payload)[:-12]


def _invented_number(first: Callable[[Payload], Payload]) -> Callable[[Payload], Payload]:
    def change(payload: Payload) -> Payload:
        first(payload)["evidence"] = [999]
        return payload
    return change


def _unknown_document(first: Callable[[Payload], Payload]) -> Callable[[Payload], Payload]:
    def change(payload: Payload) -> Payload:
        first(payload)["document_id"] = str(uuid4())
        return payload
    return change


def _first_obligation(payload: Payload) -> Payload:
    obligation: Payload = payload["documents"][0]["key_obligations"][0]
    return obligation


def _first_section(payload: Payload) -> Payload:
    section: Payload = payload["documents"][0]
    return section


def _first_cell(payload: Payload) -> Payload:
    cell: Payload = payload["rows"][0]["cells"][0]
    return cell


FAULTS: dict[str, tuple[Callable[[Payload], Any], str]] = {
    "summary-malformed": (_malformed, "malformed output"),
    "summary-invented-number": (_invented_number(_first_obligation), "[999], which was not"),
    "summary-unknown-document": (_unknown_document(_first_section), "is not among the doc"),
    "compare-malformed": (_malformed, "malformed output"),
    "compare-invented-number": (_invented_number(_first_cell), "[999], which was not shown"),
    "compare-unknown-document": (_unknown_document(_first_cell), "is not among the documents"),
}


@pytest.mark.parametrize("fault", list(FAULTS))
async def test_an_answer_that_cannot_be_mapped_ends_in_the_offline_report(
        llm_chat: ChatService, offline_chat: ChatService, llm_container: Container,
        corpus: Corpus, behaviour: StubBehaviour, fault: str) -> None:
    change, reason = FAULTS[fault]
    step = "compose_summary" if fault.startswith("summary") else "compose_comparison"
    behaviour.answers[step] = lambda user: change(structured_answer(step, user))
    ask = _summarize if step == "compose_summary" else _compare
    r = await ask(llm_chat, corpus)
    assert r.engine is Engine.LLM_FALLBACK
    assert [f for f in _fallbacks(r) if f.startswith(f"{step}: ")] == [
        f for f in _fallbacks(r) if reason in f], _fallbacks(r)
    assert any(reason in f for f in _fallbacks(r))
    assert len(_calls(behaviour, step)) == 1
    # The offline engine's report, numbered from 1: the rejected answer left no citation.
    offline = await ask(offline_chat, corpus)
    # Said first, in words: the model's answer was replaced, why, and by whose.
    notice, answer = r.answer.split("\n\n", 1)
    assert notice.startswith("The model") and notice.endswith(
        "; this is the offline engine's answer."), notice
    assert answer == offline.answer
    assert r.context["answered_by"] == "offline"
    assert r.citations == offline.citations
    assert (r.summary, r.comparison) == (offline.summary, offline.comparison)
    await _all_quotes_verify(llm_container, corpus, r)


async def _audit(chat: ChatService, corpus: Corpus) -> ChatResponse:
    return await Conversation(chat, corpus.tenant_id).ask(
        "Audit @Policy against the AML rules", action=Action.AUDIT,
        tagged_doc_ids=[corpus.policy.id, corpus.aml.id])


async def test_policy_audit_comes_from_the_model_theme_by_theme(
        llm_chat: ChatService, llm_container: Container, corpus: Corpus,
        behaviour: StubBehaviour) -> None:
    r = await _audit(llm_chat, corpus)
    assert r.engine is Engine.LLM, _fallbacks(r)
    assert r.audit is not None and r.audit.mode == "policy" and r.audit.findings
    themes = _calls(behaviour, "extract_themes")
    findings = _calls(behaviour, "audit_findings")
    # One call for the themes (steps route); per theme, one findings call (audit route) per
    # BATCH of the rulebook's DEPTH passages on the theme.
    assert len(themes) == 1 and themes[0]["model"] == "stub-small"
    per_theme = -(-audit_plan.DEPTH // audit_plan.BATCH)
    assert r.audit.themes_analyzed and len(findings) == r.audit.themes_analyzed * per_theme
    assert {c["model"] for c in findings} == {"stub-large"}
    assert all(f.theme and f.target_doc_id == corpus.aml.id for f in r.audit.findings)
    assert r.audit.overall_status == "Major Violations"  # the stub's first finding is High
    await _all_quotes_verify(llm_container, corpus, r)


async def test_an_audit_citing_a_passage_never_shown_runs_offline(
        llm_chat: ChatService, offline_chat: ChatService, corpus: Corpus,
        behaviour: StubBehaviour) -> None:
    def invented(user: str) -> Payload:
        answer = structured_answer("audit_findings", user)
        for finding in answer["findings"]:
            finding["target_evidence"] = "T99"
        return answer

    behaviour.answers["audit_findings"] = invented
    r = await _audit(llm_chat, corpus)
    assert r.engine is Engine.LLM_FALLBACK
    assert any(f.startswith("audit:") and "T99" in f for f in _fallbacks(r))
    offline = await _audit(offline_chat, corpus)
    assert r.audit is not None and offline.audit is not None
    assert r.audit.model_dump() == offline.audit.model_dump()
