"""What the review of an audit reads of a pair of versions (changes.impacting.ImpactService:
``superseded``, ``carried``) is worked out once a pair and tenant, and kept in a bounded cache:
a review reads it on every load and every decision. Over in-memory stores that count their
reads."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any, cast
from uuid import UUID

from regintel.changes.impacting import ImpactService, PairImpacts, Settled
from regintel.changes.models import ChangeReport
from regintel.changes.report import compare_texts
from regintel.domain.coverage import ObligationRow
from regintel.domain.documents import DocStatus, DocType, Document, StoredChunk
from regintel.errors import NotFound
from regintel.obligations.registers import Registers
from regintel.ontology.store import OntologyStore
from regintel.ports.library import ChunkIndex, DocumentStore
from regintel.ports.reviews import ReviewStore
from tests.unit.changes.test_impact import NEW, OLD, _register

FAMILY = uuid.uuid4()


def _version(label: str, *, current: bool) -> Document:
    return Document(id=uuid.uuid4(), title="Records rule", version=label,
                    doc_type=DocType.REGULATION, status=DocStatus.READY, family_id=FAMILY,
                    is_current=current, original_filename=f"{label}.txt", mime_type="text/plain",
                    size_bytes=1, created_at=datetime.now(UTC), content_hash="-", file_path="-")


class Library:
    """One tenant's chain of two versions, their registers and change report; every read
    counted."""

    def __init__(self, tenant_id: UUID) -> None:
        self.tenant_id = tenant_id
        self.old, self.new = _version("2019", current=False), _version("2024", current=True)
        self.rows = {self.old.id: _register(OLD, "2019"), self.new.id: _register(NEW, "2024")}
        self.reports = 0
        self.registers = 0

    def _mine(self, tenant_id: UUID) -> None:
        if tenant_id != self.tenant_id:
            raise NotFound("not this tenant's")

    async def versions(self, tenant_id: UUID, document_id: UUID) -> list[Document]:
        self._mine(tenant_id)
        return [self.old, self.new]

    async def report(self, tenant_id: UUID, old_id: UUID, new_id: UUID) -> ChangeReport:
        self._mine(tenant_id)
        self.reports += 1
        return compare_texts(OLD, NEW, "Records rule (2019)", "Records rule (2024)")

    async def get(self, tenant_id: UUID, document_id: UUID) -> list[ObligationRow]:
        self._mine(tenant_id)
        self.registers += 1
        return self.rows[document_id]

    async def document_chunks(self, tenant_id: UUID, document_id: UUID) -> list[StoredChunk]:
        self._mine(tenant_id)
        return []  # no text: obligations are placed by their words alone


def _service(library: Library, settled: PairImpacts | None = None) -> ImpactService:
    store: Any = library
    return ImpactService(documents=cast(DocumentStore, store), index=cast(ChunkIndex, store),
                         changes=store, registers=cast(Registers, store),
                         reviews=cast(ReviewStore, None), ontology=cast(OntologyStore, None),
                         settled=settled)


async def test_a_pair_is_worked_out_once_for_every_review_that_reads_it() -> None:
    library = Library(uuid.uuid4())
    service = _service(library)
    reopened = await service.superseded(library.tenant_id, library.old.id)
    carried = await service.carried(library.tenant_id, library.new.id)
    assert any("changed it" in why for why in reopened.values())
    assert any("removed it" in why for why in reopened.values())
    assert carried  # 7.2 and 7.3 only moved: their decisions carry over
    for _ in range(3):  # a review loaded again, a decision posted, the review after it
        assert await service.superseded(library.tenant_id, library.old.id) == reopened
        assert await service.carried(library.tenant_id, library.new.id) == carried
    assert (library.reports, library.registers) == (1, 2)


async def test_what_a_caller_does_with_the_answer_leaves_the_kept_one_alone() -> None:
    library = Library(uuid.uuid4())
    service = _service(library)
    reopened = await service.superseded(library.tenant_id, library.old.id)
    reopened.clear()
    assert await service.superseded(library.tenant_id, library.old.id)


async def test_services_of_one_process_share_the_pairs_worked_out() -> None:
    library, shared = Library(uuid.uuid4()), PairImpacts()
    first = await _service(library, shared).superseded(library.tenant_id, library.old.id)
    assert await _service(library, shared).superseded(library.tenant_id,
                                                      library.old.id) == first
    assert library.reports == 1


async def test_no_tenant_reads_the_entry_of_another_even_for_the_same_ids() -> None:
    shared = PairImpacts()
    alice = Library(uuid.uuid4())
    await _service(alice, shared).superseded(alice.tenant_id, alice.old.id)
    mallory = Library(uuid.uuid4())
    mallory.old, mallory.new = alice.old, alice.new  # the ids of alice's pair
    mallory.rows = {alice.old.id: [], alice.new.id: []}  # her own registers have nothing
    assert await _service(mallory, shared).superseded(mallory.tenant_id, alice.old.id) == {}
    assert mallory.reports == 1
    assert shared.get(mallory.tenant_id, alice.old.id, alice.new.id) == Settled({}, {})
    assert shared.get(alice.tenant_id, alice.old.id, alice.new.id) != Settled({}, {})


def test_the_cache_keeps_the_pairs_read_most_recently() -> None:
    pairs = PairImpacts(size=2)
    tenant = uuid.uuid4()
    a, b, c = ((uuid.uuid4(), uuid.uuid4()) for _ in range(3))
    for old, new in (a, b):
        pairs.put(tenant, old, new, Settled({}, {}))
    assert pairs.get(tenant, *a) is not None  # read: a is now the most recent
    pairs.put(tenant, *c, Settled({}, {}))
    assert pairs.get(tenant, *b) is None
    assert pairs.get(tenant, *a) is not None and pairs.get(tenant, *c) is not None
