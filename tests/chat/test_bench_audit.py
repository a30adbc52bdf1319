"""``regintel bench audit``: the demo policy's audit as a chat turn, scored against its planted
gaps, on the offline engine and on the LLM engine (the real adapter over the stub model)."""

from __future__ import annotations

from pathlib import Path

import pytest

from regintel.bench import adgm_corpus, audit_recall
from regintel.bench.audit import load_gaps
from regintel.bench.llm_stub import StubBehaviour
from regintel.chat.service import ChatService
from regintel.container import Container
from regintel.domain.chat import ChatResponse, NeedsInput
from tests.chat.conftest import Conversation, Corpus
from tests.chat.test_offline_audit import MIN_RECALL

GAPS = Path(__file__).resolve().parents[1] / "data" / "aml_policy_gaps.json"


def _corpus(corpus: Corpus) -> adgm_corpus.Corpus:
    return adgm_corpus.Corpus(corpus.tenant_id, corpus.aml, corpus.gen, corpus.policy)


async def test_the_offline_audit_turn_is_scored(container: Container, corpus: Corpus) -> None:
    figures = await audit_recall.audit_turn(container, _corpus(corpus), load_gaps(GAPS))
    assert figures["engine"] == "offline" and figures["gaps"] == 14
    # The floor of tests/chat/test_offline_audit.py (measured 4 of 14 on the coverage matrix).
    assert figures["recall"] >= MIN_RECALL and figures["found"] == round(figures["recall"] * 14)
    assert figures["quotes_fabricated"] == 0 and figures["quotes_dropped"] == 0
    assert 0 < figures["matching_findings"] <= figures["findings_on_target"]
    assert figures["findings_on_target"] <= figures["findings"]
    assert figures["met"] is (figures["recall"] >= 0.8)
    assert len(figures["missed"]) == 14 - figures["found"]


async def test_the_model_audit_turn_is_scored(llm_container: Container, corpus: Corpus,
                                              behaviour: StubBehaviour) -> None:
    figures = await audit_recall.audit_turn(llm_container, _corpus(corpus), load_gaps(GAPS))
    assert figures["engine"] == "llm" and figures["themes"]
    assert figures["findings"] > 0 and figures["quotes_fabricated"] == 0
    assert figures["usage"]["input_tokens"] > 0 and figures["usage"]["cost_usd"] > 0
    rows = dict(audit_recall.table_rows(figures))
    assert rows["engine"] == "llm" and rows["planted gaps found"].endswith("of 14")


async def test_a_quote_not_in_the_stored_text_is_counted(offline_chat: ChatService,
                                                         container: Container,
                                                         corpus: Corpus) -> None:
    response = await Conversation(offline_chat, corpus.tenant_id).ask(
        audit_recall.REQUEST, action="audit",
        tagged_doc_ids=[corpus.policy.id, corpus.aml.id, corpus.gen.id])
    assert response.audit is not None and len(response.audit.findings) >= 2
    first, second, *rest = response.audit.findings
    longer = first.target_quote + " or never, as the Firm decides"
    changed = [first.model_copy(update={"target_quote": longer}),
               second.model_copy(update={"source_quote": "The Firm never verifies anyone."}),
               *rest]
    forged = response.model_copy(
        update={"audit": response.audit.model_copy(update={"findings": changed})})

    async def fabricated(r: ChatResponse) -> int:
        return await audit_recall.fabricated_quotes(container.chunk_index, corpus.tenant_id, r,
                                                    policy_id=corpus.policy.id)

    assert await fabricated(response) == 0
    assert await fabricated(forged) == 2


def test_a_turn_without_an_audit_is_an_error(corpus: Corpus) -> None:
    asked = ChatResponse(thread_id=corpus.tenant_id, answer="Which documents?",
                         needs_input=NeedsInput(kind="missing_docs",
                                                message="Tag the policy to audit."))
    with pytest.raises(RuntimeError, match="Tag the policy to audit"):
        audit_recall.audit_of(asked)
