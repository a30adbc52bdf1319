"""The offline answer as it arrives: the steps named as they start ("Searching 1 document…",
"Reading 6 provisions…"), the answer's text sent as soon as it is composed - before the
checks after it end - always a prefix of the final answer; and the sentence vectors a turn
embeds kept for the next turn of the same tenant only."""

from __future__ import annotations

import re
from uuid import uuid4

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.chat.offline.engine import OfflineEngine
from regintel.chat.offline.ranking import Kept
from regintel.chat.service import ChatService
from regintel.container import Container
from regintel.domain.chat import ChatRequest
from regintel.domain.documents import SearchScope
from regintel.retrieval.evidence import CitationBook
from regintel.retrieval.unit_vectors import UnitVectors
from tests.chat.conftest import Corpus
from tests.chat.test_unit_vectors import Counting

QUESTION = "How long must a Relevant Person keep records of customer due diligence?"


async def test_steps_are_named_and_text_arrives_before_the_answer_ends(
        offline_chat: ChatService, corpus: Corpus) -> None:
    events = [e async for e in offline_chat.stream(corpus.tenant_id, ChatRequest(
        message=QUESTION, tagged_doc_ids=(corpus.aml.id,)))]
    kinds = [e.kind for e in events]
    details = [e.data["detail"] for e in events if e.kind == "status" and "detail" in e.data]
    assert "Searching 1 document…" in details, details
    reading = [d for d in details if d.startswith("Reading ")]
    assert reading and re.fullmatch(r"Reading \d+ provisions?…", reading[0]), details
    assert details.index(reading[0]) > details.index("Searching 1 document…")
    # Text is sent while the turn still runs: node events (the checks, the memory) follow it.
    first_text = kinds.index("text")
    later_nodes = [e.data.get("node") for e in events[first_text:] if e.kind == "status"]
    assert {"validate_sources", "update_memory"} <= set(later_nodes), later_nodes
    streamed = "".join(e.data for e in events if e.kind == "text")
    final = events[-1]
    assert final.kind == "meta"
    assert final.data.answer == streamed, "the stream spells the final answer"
    assert final.data.citations


async def test_sentence_vectors_are_kept_for_the_same_tenant_only(
        container: Container, corpus: Corpus, embedder: LocalEmbedder) -> None:
    hits = await container.retriever.search(corpus.tenant_id, QUESTION,
                                            scope=SearchScope(document_ids=(corpus.aml.id,)))
    assert hits
    counting, memo = Counting(embedder), UnitVectors()
    engine = OfflineEngine(counting, Kept(memo, corpus.tenant_id))
    first = await engine.compose_inquiry(QUESTION, hits, CitationBook(), caution=False)
    embedded = counting.texts
    assert embedded > 5  # the question and the sentences of the evidence
    again = await engine.compose_inquiry(QUESTION, hits, CitationBook(), caution=False)
    assert counting.texts == embedded + 1, "only the question is embedded again"
    assert again.answer == first.answer
    # Another tenant's turn over the same passages reads nothing this tenant's turns kept.
    other = OfflineEngine(counting, Kept(memo, uuid4()))
    await other.compose_inquiry(QUESTION, hits, CitationBook(), caution=False)
    assert counting.texts == 2 * embedded + 1
