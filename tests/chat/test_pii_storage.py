"""Issue 34, finding 5, end to end: a printed IBAN, an address at a reserved domain and a
passport number, sent through the chat, leave no trace of themselves in what is stored."""

from __future__ import annotations

import psycopg

from regintel.container import Container
from tests.chat.conftest import Conversation, Corpus

IBAN = "GB82 WEST 1234 5698 7654 32"
EMAIL = "jane@corp.example"
PASSPORT = "C01X00T47"
# Pieces a half-masked value would leave behind (the probe found "GB82 WEST" stored).
RAW = (IBAN, "GB82 WEST", "5698 7654", EMAIL, "jane@", PASSPORT)


async def test_identifiers_are_masked_before_storage(conversation: Conversation,
                                                     container: Container,
                                                     corpus: Corpus) -> None:
    r = await conversation.ask(
        f"I am {EMAIL}, passport number: {PASSPORT}; call me about the refund to {IBAN}. "
        "How long are CDD records kept?")
    stored = await container.conversations.messages(corpus.tenant_id, r.thread_id)
    assert stored
    assert [(m.role, raw) for m in stored for raw in RAW if raw in m.content] == []
    question = stored[0].content
    assert question.startswith("I am <EMAIL_ADDRESS>, passport number: <PASSPORT>; call me "
                               "about the refund to <IBAN_CODE>.")
    assert "<PHONE_NUMBER>" not in question
    thread = await container.conversations.get(corpus.tenant_id, r.thread_id)
    assert all(raw not in thread.title for raw in RAW)
    # Nor does any checkpoint of the run (its input included).
    with psycopg.connect(corpus.url) as conn:
        for raw in RAW:
            leaks = conn.execute(
                "SELECT (SELECT count(*) FROM checkpoints WHERE checkpoint::text LIKE %(p)s"
                "        OR metadata::text LIKE %(p)s)"
                " + (SELECT count(*) FROM checkpoint_blobs WHERE position(%(b)s IN blob) > 0)"
                " + (SELECT count(*) FROM checkpoint_writes WHERE position(%(b)s IN blob) > 0)",
                {"p": f"%{raw}%", "b": raw.encode()}).fetchone()
            assert leaks == (0,), raw
