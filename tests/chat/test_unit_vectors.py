"""The audit's memory of regulation unit vectors (retrieval.unit_vectors): a second audit
embeds only what it has not read, never from another tenant's or document's entries, and the
vectors are those the model gives."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from uuid import uuid4

import numpy as np

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.ports.embedder import Vectors
from regintel.retrieval.unit_vectors import UnitVectors

RULES = ["Record-keeping A Relevant Person must retain records for at least six years.",
         "Training A Relevant Person must provide AML training to all relevant Employees.",
         "Reporting The MLRO must report to the Governing Body at least annually."]


class Counting:
    """The real model, counting the texts it is asked to embed."""

    def __init__(self, inner: LocalEmbedder) -> None:
        self.inner, self.texts = inner, 0
        self.model_name, self.dimension = inner.model_name, inner.dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.texts += len(texts)
        return self.inner.embed(texts)


async def test_a_second_audit_embeds_only_what_is_new(embedder: LocalEmbedder) -> None:
    counting, memo = Counting(embedder), UnitVectors()
    tenant, aml = uuid4(), uuid4()
    first = await memo.embed(counting, tenant, [(aml, t) for t in RULES[:2]])
    assert counting.texts == 2
    again = await memo.embed(counting, tenant, [(aml, t) for t in [RULES[2], *RULES[:2]]])
    assert counting.texts == 3  # only the new rule
    np.testing.assert_allclose(again[1:], first, atol=1e-6)
    np.testing.assert_allclose(again, embedder.embed([RULES[2], *RULES[:2]]), atol=1e-5)
    assert len(memo) == 3


async def test_no_tenant_or_document_reads_another_s_entries(embedder: LocalEmbedder) -> None:
    counting, memo = Counting(embedder), UnitVectors()
    tenant, aml = uuid4(), uuid4()
    await memo.embed(counting, tenant, [(aml, RULES[0])])
    await memo.embed(counting, uuid4(), [(aml, RULES[0])])  # another tenant, same document id
    await memo.embed(counting, tenant, [(uuid4(), RULES[0])])  # another document (a version)
    assert counting.texts == 3


async def test_memory_is_bounded_least_recently_used_first(embedder: LocalEmbedder) -> None:
    counting, memo = Counting(embedder), UnitVectors(capacity=2)
    tenant, aml = uuid4(), uuid4()
    await memo.embed(counting, tenant, [(aml, RULES[0]), (aml, RULES[1])])
    await memo.embed(counting, tenant, [(aml, RULES[0])])  # now the most recently used
    await memo.embed(counting, tenant, [(aml, RULES[2])])  # evicts RULES[1]
    assert len(memo) == 2 and counting.texts == 3
    await memo.embed(counting, tenant, [(aml, RULES[0])])
    assert counting.texts == 3
    await memo.embed(counting, tenant, [(aml, RULES[1])])
    assert counting.texts == 4
    # Within one call, a text is embedded once; nothing to embed, nothing is.
    vectors = await memo.embed(counting, tenant, [(aml, "x y z"), (aml, "x y z")])
    assert counting.texts == 5 and vectors.shape == (2, embedder.dimension)
    assert (await memo.embed(counting, tenant, [])).shape == (0, embedder.dimension)


class Slow(Counting):
    """Counting, and slow enough that a second call starts while the first embeds; or
    failing, as a model whose worker ran out of memory would."""

    def __init__(self, inner: LocalEmbedder, *, fail: bool = False) -> None:
        super().__init__(inner)
        self.fail = fail

    def embed(self, texts: Sequence[str]) -> Vectors:
        time.sleep(0.3)
        if self.fail:
            raise OSError("the embedding worker died")
        return super().embed(texts)


async def test_a_text_being_embedded_is_awaited_not_embedded_twice(
        embedder: LocalEmbedder) -> None:
    """An audit that starts while its document's preparation embeds the same units (or two
    audits of one regulation at once) waits for those vectors instead of embedding them."""
    slow, memo = Slow(embedder), UnitVectors()
    tenant, aml = uuid4(), uuid4()
    first, second = await asyncio.gather(
        memo.embed(slow, tenant, [(aml, RULES[0]), (aml, RULES[1])]),
        memo.embed(slow, tenant, [(aml, RULES[1]), (aml, RULES[2])]))
    assert slow.texts == 3  # RULES[1] once
    np.testing.assert_allclose(second[0], first[1], atol=1e-6)
    np.testing.assert_allclose(second, embedder.embed(RULES[1:]), atol=1e-5)


async def test_a_call_whose_embedding_fails_leaves_the_others_to_embed(
        embedder: LocalEmbedder) -> None:
    failing, counting, memo = Slow(embedder, fail=True), Counting(embedder), UnitVectors()
    tenant, aml = uuid4(), uuid4()
    failed, vectors = await asyncio.gather(memo.embed(failing, tenant, [(aml, RULES[0])]),
                                           memo.embed(counting, tenant, [(aml, RULES[0])]),
                                           return_exceptions=True)
    assert isinstance(failed, OSError) and counting.texts == 1
    assert isinstance(vectors, np.ndarray) and vectors.shape == (1, embedder.dimension)
    await memo.embed(counting, tenant, [(aml, RULES[0])])  # kept now, by the call that made it
    assert counting.texts == 1
