"""The conversation, memory and FAQ stores on the real database: what they keep, and that a
tenant never sees another tenant's rows through any of them."""

from __future__ import annotations

import pytest

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.adapters.postgres.conversations_repo import PostgresConversationStore
from regintel.adapters.postgres.database import Database
from regintel.adapters.postgres.documents_repo import PostgresDocumentStore
from regintel.adapters.postgres.faq_repo import PostgresFaqStore
from regintel.domain.chat import EngineChoice
from regintel.errors import NotFound


async def test_conversations_memory_and_usage_are_per_tenant(database: Database,
                                                             embedder: LocalEmbedder) -> None:
    tenants = PostgresDocumentStore(database)
    a, b = await tenants.ensure_tenant("acme"), await tenants.ensure_tenant("globex")
    store = PostgresConversationStore(database)
    conv = await store.create(a, title="CDD questions")
    await store.add_message(a, conv.id, "user", "What is CDD?")
    answer = await store.add_message(a, conv.id, "assistant", "CDD is …", {"citations": []})
    vector = embedder.embed(["What is CDD?"])[0]
    await store.add_qa(a, conv.id, exchange_id=answer, question="What is CDD?",
                       answer_digest="CDD is …", topics=["cdd"], source_ids=[],
                       embedding=list(vector))
    await store.save_summary(a, conv.id, "- Asked about CDD", 2)
    await store.record_usage(a, user_id=None, conversation_id=conv.id, action="inquire",
                             engine="offline", model="", input_tokens=0, output_tokens=0,
                             cost_usd=0.0)

    memory = await store.memory(a, conv.id, window=10)
    assert [m.role for m in memory.recent] == ["user", "assistant"]
    assert memory.summary == "- Asked about CDD" and memory.message_count == 2
    found = await store.search_qa(a, conv.id, topic="CDD", vector=list(vector))
    assert [e.exchange_id for e in found] == [answer]
    assert [c.id for c in await store.list_conversations(a)] == [conv.id]

    # Tenant b sees none of it, by id or by listing.
    with pytest.raises(NotFound):
        await store.get(b, conv.id)
    with pytest.raises(NotFound):
        await store.get_message(b, conv.id, answer)
    with pytest.raises(NotFound):
        await store.rename(b, conv.id, "stolen")
    with pytest.raises(NotFound):
        await store.delete(b, conv.id)
    assert await store.list_conversations(b) == []
    assert await store.messages(b, conv.id) == []
    assert (await store.memory(b, conv.id, window=10)).message_count == 0
    assert await store.search_qa(b, conv.id, topic="CDD", vector=list(vector)) == []

    await store.delete(a, conv.id)  # takes its messages and memory with it
    assert await store.messages(a, conv.id) == []
    assert (await store.memory(a, conv.id, window=10)).summary == ""


async def test_a_conversations_engine_is_kept_changed_and_per_tenant(
        database: Database) -> None:
    tenants = PostgresDocumentStore(database)
    a, b = await tenants.ensure_tenant("acme"), await tenants.ensure_tenant("globex")
    store = PostgresConversationStore(database)
    default = await store.create(a, title="default engine")
    assert default.engine is None  # the deployment's default
    chosen = await store.create(a, title="offline", engine=EngineChoice.OFFLINE)
    assert chosen.engine is EngineChoice.OFFLINE
    assert (await store.get(a, chosen.id)).engine is EngineChoice.OFFLINE

    await store.set_engine(a, default.id, EngineChoice.CLOUD)
    await store.set_engine(a, chosen.id, None)
    listed = {c.id: c.engine for c in await store.list_conversations(a)}
    assert listed == {default.id: EngineChoice.CLOUD, chosen.id: None}

    with pytest.raises(NotFound):  # another tenant cannot change it, or learn it exists
        await store.set_engine(b, default.id, EngineChoice.OFFLINE)
    assert (await store.get(a, default.id)).engine is EngineChoice.CLOUD
    for conversation in (default, chosen):
        await store.delete(a, conversation.id)


async def test_faq_entries_match_by_meaning_within_one_tenant(database: Database,
                                                              embedder: LocalEmbedder) -> None:
    tenants = PostgresDocumentStore(database)
    a, b = await tenants.ensure_tenant("acme"), await tenants.ensure_tenant("globex")
    faq = PostgresFaqStore(database, embedder)
    assert await faq.match(a, "Who is our MLRO?") is None
    entry = await faq.add(a, "Who is our MLRO?", "Our MLRO is the Head of Compliance.")
    assert await faq.match(a, "who's our MLRO?") == entry.answer
    # A regulatory question on the same subject is not the FAQ: it goes to the pipeline.
    assert await faq.match(a, "Who is the MLRO under the AML rules?") is None
    assert await faq.match(a, "What is the capital requirement for banks?") is None
    assert await faq.match(b, "Who is our MLRO?") is None
    assert await faq.entries(b) == []
    with pytest.raises(NotFound):
        await faq.remove(b, entry.id)
    await faq.remove(a, entry.id)
    assert await faq.entries(a) == []
