"""ConversationContextStore on the real Postgres: load/save, tenant isolation, deletion with
the conversation, retention."""

from __future__ import annotations

from sqlalchemy import text

from regintel.adapters.postgres.context_repo import PostgresConversationContextStore
from regintel.adapters.postgres.database import Database
from regintel.concepts.context import merge_active_node_ids
from regintel.domain.concepts import ConversationContext, ConversationIdentity
from tests.concepts.conftest import Tenancy


async def test_load_save_isolation_and_cascade(database: Database, tenancy: Tenancy) -> None:
    store = PostgresConversationContextStore(database)
    identity = await tenancy.conversation()
    assert await store.load(identity) is None
    await store.save(identity, ConversationContext(activeNodeIds=["concept:AML:CDD:ADGM"]))
    await store.save(identity, ConversationContext(activeNodeIds=["a:b", "concept:AML:CDD:ADGM"]))
    assert (await store.load(identity)) == ConversationContext(
        activeNodeIds=["a:b", "concept:AML:CDD:ADGM"])

    other_tenant = await tenancy.documents.ensure_tenant("globex")
    stranger = ConversationIdentity(tenant_id=other_tenant,
                                    conversation_id=identity.conversation_id)
    assert await store.load(stranger) is None  # RLS and the tenant filter

    await tenancy.conversations.delete(identity.tenant_id, identity.conversation_id)
    assert await store.load(identity) is None  # ON DELETE CASCADE took it


async def test_retention_purges_only_inactive_conversations(database: Database,
                                                            tenancy: Tenancy) -> None:
    store = PostgresConversationContextStore(database)
    idle, busy, fresh = [await tenancy.conversation() for _ in range(3)]
    for identity in (idle, busy, fresh):
        await store.save(identity, ConversationContext(activeNodeIds=["concept:X:Y:EU"]))
    async with database.system_session() as s:
        for identity in (idle, busy):
            await s.execute(text("UPDATE conversation_context SET updated_at = now() - "
                                 "interval '100 days' WHERE conversation_id = :c"),
                            {"c": identity.conversation_id})
            await s.execute(text("UPDATE conversations SET created_at = now() - "
                                 "interval '100 days' WHERE id = :c"),
                            {"c": identity.conversation_id})
    # "busy" was talked in yesterday: its context stays even though it was not re-saved.
    await tenancy.conversations.add_message(busy.tenant_id, busy.conversation_id, "user", "hi")
    assert await store.purge_inactive(older_than_days=90) == 1
    assert await store.load(idle) is None
    assert await store.load(busy) is not None and await store.load(fresh) is not None


def test_merge_is_a_recency_ordered_union() -> None:
    assert merge_active_node_ids([], ["a"], max_nodes=3) == ["a"]
    assert merge_active_node_ids(["a", "b"], ["c", "a"], max_nodes=3) == ["b", "c", "a"]
    assert merge_active_node_ids(["a", "b", "c"], ["d"], max_nodes=3) == ["b", "c", "d"]
    assert merge_active_node_ids(["a", "a"], ["b", "b"], max_nodes=5) == ["a", "b"]
