"""An inquiry's confidence is that of the answer it gives (retrieval.calibration): a question
the library answers only with glossary definitions is not High, however well retrieval
matched them; an answer citing a rule is tiered by its probability alone."""

from __future__ import annotations

from regintel.chat.service import ChatService
from regintel.container import Container
from regintel.domain.chat import Action, ChatResponse
from regintel.retrieval.calibration import is_definition, is_glossary, load_model
from tests.chat.conftest import Conversation, Corpus


async def _definitions_only(container: Container, corpus: Corpus, r: ChatResponse) -> bool:
    chunks = await container.chunk_index.fetch(
        corpus.tenant_id, [c.chunk_id for c in r.citations if c.chunk_id])
    return bool(r.citations) and all(
        is_definition(c.quote) or (c.chunk_id in chunks and is_glossary(
            chunks[c.chunk_id][0].text)) for c in r.citations)


async def test_an_answer_made_only_of_definitions_is_not_high(
        offline_chat: ChatService, container: Container, corpus: Corpus) -> None:
    r = await Conversation(offline_chat, corpus.tenant_id).ask(
        "Tell me about Designated Non-Financial Businesses and Professions")
    assert r.action is Action.INQUIRE and r.confidence is not None
    # The AML glossary's entry is what the library answers with (and all it answers with).
    assert await _definitions_only(container, corpus, r), [c.quote for c in r.citations]
    assert r.confidence.tier != "high", r.confidence


async def test_an_answer_citing_the_rule_is_tiered_by_its_probability(
        offline_chat: ChatService, container: Container, corpus: Corpus) -> None:
    by_rule = await Conversation(offline_chat, corpus.tenant_id).ask(
        "How long must a Relevant Person keep CDD records?")
    by_definitions = await Conversation(offline_chat, corpus.tenant_id).ask(
        "Tell me about Designated Non-Financial Businesses and Professions")
    assert by_rule.confidence is not None and by_definitions.confidence is not None
    assert not await _definitions_only(container, corpus, by_rule)
    model = load_model()
    # The tier is the probability's, by the thresholds fitted with the model.
    assert 0.0 < by_rule.confidence.score < 1.0
    assert by_rule.confidence.tier == model.tier(by_rule.confidence.score).value
    assert by_rule.confidence.tier in ("high", "medium")
    assert 0.0 < by_definitions.confidence.score < 1.0
