"""Every step fits its model's window: an inquiry keeps the best passages that fit, a report
thins each document's evidence evenly, an audit for a small window plans smaller calls, and a
large window changes nothing."""

from __future__ import annotations

from dataclasses import replace
from uuid import uuid4

from regintel.chat.llm import audit_plan, evidence_text
from regintel.chat.llm.engine import LlmEngine
from regintel.chat.llm.fake import ScriptedChatModel
from regintel.chat.llm.routing import Price, Route, RouteName, TenantRoutes
from regintel.chat.offline.engine import OfflineEngine
from regintel.domain.documents import ChunkHit, DocType
from tests.unit.chat_llm.conftest import document


def _hits(n: int, chars: int = 900) -> list[ChunkHit]:
    doc = uuid4()
    return [ChunkHit(ordinal=i, text=f"Passage {i}. " + "x" * chars, page_start=i + 1,
                     page_end=i + 1, char_start=0, char_end=chars, clause=None,
                     chunk_id=uuid4(), document_id=doc, document_title="Rules",
                     document_version="1", doc_type=DocType.REGULATION, score=1 - i / 100)
            for i in range(n)]


def test_an_inquiry_keeps_the_best_passages_that_fit() -> None:
    hits = _hits(8)
    top, user = evidence_text.inquiry_input("How long?", hits, budget_chars=2500)
    assert [h.ordinal for h in top] == [0, 1]
    assert len(user) <= 2500 + 200
    # Always one passage, however small the window.
    assert len(evidence_text.inquiry_input("How long?", hits, budget_chars=10)[0]) == 1
    assert len(evidence_text.inquiry_input("How long?", hits)[0]) == 8


def test_a_summary_thins_each_document_evenly_to_fit() -> None:
    hits = _hits(30, chars=400)
    doc = document("Rules", doc_id=hits[0].document_id)
    whole = evidence_text.fit_numbered([doc], {doc.id: hits}, per_document=30,
                                       best_first=False, budget_chars=10**6)
    assert len(whole.hits) == 30
    fitted = evidence_text.fit_numbered([doc], {doc.id: hits}, per_document=30,
                                        best_first=False, budget_chars=3000)
    ordinals = [h.ordinal for h in fitted.hits]
    assert sum(map(evidence_text.item_chars, fitted.hits)) <= 3000
    assert ordinals[0] < 10 and ordinals[-1] > 20  # the whole document, not its opening


def test_the_route_budget_leaves_the_answer_room() -> None:
    route = Route(alias="local", model=ScriptedChatModel([]), price=Price(),
                  context_tokens=2048, output_tokens=320)
    system = "s" * 3000  # 1,000 tokens at 3 characters a token
    assert route.evidence_chars(system) == (2048 - 320 - 1000 - 100) * 3
    big = replace(route, context_tokens=128_000, output_tokens=4096)
    assert big.evidence_chars(system) > 300_000


def test_the_audit_plans_for_a_small_window_only() -> None:
    assert audit_plan.Window.for_context(400_000) is None
    window = audit_plan.Window.for_context(6000)
    assert window is not None and 1 <= window.batch <= 5
    assert window.passage_chars < audit_plan.MAX_PASSAGE_CHARS
    assert audit_plan.shown_text("y" * 2000, window.passage_chars).endswith(" …")


def test_the_engine_sizes_the_inquiry_to_its_route(offline: OfflineEngine) -> None:
    model = ScriptedChatModel([])
    small = Route(alias="s", model=model, context_tokens=2048, output_tokens=320)
    engine = LlmEngine(TenantRoutes({r: small for r in RouteName}), offline)
    assert 300 * 3 <= engine._inquiry_budget() < 2048 * 3
