"""Versions of a document in the library (issue 48), on a real pair of versions of 27 CFR
Part 646 (../shared/data/versions/atf: the Bureau renamed "Tobacco and Firearms" to "Tobacco,
Firearms, and Explosives" in § 646.143): the chain, which version is current (by effective
date, a date in the future not yet), search reading only the current version unless a
document is named, the tenant wall, and the change report prepared by the follow-up job."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import date
from pathlib import Path
from uuid import UUID

import pytest
from sqlalchemy import text

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.adapters.postgres.change_reports_repo import PostgresChangeReportStore
from regintel.adapters.postgres.database import Database
from regintel.changes.versions import CHANGES_JOB, VersionChanges
from regintel.domain.documents import DocType, Document, SearchScope
from regintel.errors import InvalidRequest, NotFound
from regintel.ingestion.service import FOLLOW_UP_PRIORITY, FOLLOW_UP_QUEUE, INGEST_QUEUE
from tests.contract.library.conftest import Library, build_library
from tests.contract.library.files import make_text

SHARED = Path(__file__).resolve().parents[4] / "shared" / "data"
if not SHARED.is_dir():
    SHARED = Path("/work/shared/data")
PART_646 = SHARED / "versions" / "atf" / "646"
OLD, NEW = PART_646 / "03-1657.txt", PART_646 / "2014-18842.txt"
TITLE = "27 CFR Part 646"
QUESTION = "Bureau of Alcohol, Tobacco and Firearms appropriate ATF officer"


@pytest.fixture
async def versioned(database: Database, embedder: LocalEmbedder,
                    tmp_path: Path) -> AsyncIterator[tuple[Library, VersionChanges]]:
    """A library whose ready documents queue the change-report follow-up, as the product's."""
    if not OLD.is_file():
        pytest.skip("../shared/data/versions is not beside the project")
    library = await build_library(database, embedder, tmp_path / "files",
                                  follow_ups=(CHANGES_JOB,))
    changes = VersionChanges(documents=library.documents, index=library.index,
                             store=PostgresChangeReportStore(database))
    library.queue.register(CHANGES_JOB, changes.run_job, queue=FOLLOW_UP_QUEUE,
                           priority=FOLLOW_UP_PRIORITY, retries=1)
    yield library, changes
    await library.queue.close()


async def _two_versions(library: Library, tenant: UUID, *,
                        effective: date | None = date(2014, 8, 11)) -> tuple[Document, Document]:
    old = await library.add(tenant, OLD, title=TITLE, version="2003",
                            effective_date=date(2003, 1, 24))
    new = await library.add(tenant, NEW, title=TITLE, version="2014", version_of=str(old.id),
                            effective_date=effective)
    return await library.documents.get(tenant, old.id), new


async def _searched(library: Library, tenant: UUID, scope: SearchScope | None = None
                    ) -> set[UUID]:
    hits = await library.retriever.search(tenant, QUESTION, k=8, scope=scope)
    assert hits
    return {h.document_id for h in hits}


async def test_two_versions_make_a_chain_whose_newer_is_current(
        versioned: tuple[Library, VersionChanges]) -> None:
    library, _ = versioned
    tenant = await library.documents.ensure_tenant("acme")
    old, new = await _two_versions(library, tenant)
    assert new.family_id == old.id == old.family_id and new.supersedes_id == old.id
    chain = await library.documents.versions(tenant, old.id)
    assert [(d.id, d.version, d.effective_date, d.is_current) for d in chain] == [
        (old.id, "2003", date(2003, 1, 24), False), (new.id, "2014", date(2014, 8, 11), True)]
    assert [d.id for d in await library.documents.versions(tenant, new.id)] == [old.id, new.id]
    listed = {d.id: d.is_current for d in await library.documents.list(tenant)}
    assert listed == {old.id: False, new.id: True}

    # Search reads the current version only; a named document is read whatever its version.
    assert await _searched(library, tenant) == {new.id}
    assert await _searched(library, tenant, SearchScope(document_ids=(old.id,))) == {old.id}
    assert await _searched(library, tenant, SearchScope(document_ids=(old.id, new.id))) == \
        {old.id, new.id}
    # As the library stood on a day before the new version took effect.
    assert await _searched(library, tenant, SearchScope(as_of=date(2010, 1, 1))) == {old.id}


async def test_a_version_dated_in_the_future_is_not_current_yet(
        versioned: tuple[Library, VersionChanges]) -> None:
    library, _ = versioned
    tenant = await library.documents.ensure_tenant("acme")
    old, new = await _two_versions(library, tenant, effective=date(2099, 1, 1))
    assert old.is_current and not new.is_current
    chain = await library.documents.versions(tenant, new.id)
    assert [d.is_current for d in chain] == [True, False]
    assert await _searched(library, tenant) == {old.id}
    assert await _searched(library, tenant, SearchScope(as_of=date(2099, 1, 2))) == {new.id}


async def test_undated_versions_follow_upload_and_dates(library: Library, tenant: UUID,
                                                        tmp_path: Path) -> None:
    """A version without a date comes after every version uploaded before it."""
    def rule(name: str, days: int) -> Path:
        return make_text(tmp_path / f"{name}.txt",
                         f"Rule 1.1 A firm must report a loss within {days} days.")

    first = await library.add(tenant, rule("v1", 30), title="Loss Rules", version="2012")
    dated = await library.add(tenant, rule("v2", 20), title="Loss Rules", version="2014",
                              version_of="loss rules", effective_date=date(2014, 1, 1))
    undated = await library.add(tenant, rule("v3", 10), title="Loss Rules", version="2016",
                                version_of=str(first.id))
    chain = await library.documents.versions(tenant, dated.id)
    assert [(d.id, d.is_current) for d in chain] == [
        (first.id, False), (dated.id, False), (undated.id, True)]
    assert undated.supersedes_id == dated.id and dated.supersedes_id == first.id
    # A version slotted in by its date goes before the later ones.
    earlier = await library.add(tenant, rule("v0", 40), title="Loss Rules", version="2013",
                                version_of="Loss Rules", effective_date=date(2013, 1, 1))
    chain = await library.documents.versions(tenant, first.id)
    assert [d.version for d in chain] == ["2012", "2013", "2014", "2016"]
    assert earlier.supersedes_id == first.id and chain[-1].is_current
    assert chain[2].supersedes_id == earlier.id  # the one after it now follows it

    # Deleting the first version keys the family to the next; deleting all but one ends it.
    await library.ingestion.delete(tenant, first.id)
    chain = await library.documents.versions(tenant, undated.id)
    assert [d.version for d in chain] == ["2013", "2014", "2016"]
    assert {d.family_id for d in chain} == {earlier.id}
    assert [d.supersedes_id for d in chain] == [None, earlier.id, dated.id]
    await library.ingestion.delete(tenant, undated.id)
    assert (await library.documents.get(tenant, dated.id)).is_current
    await library.ingestion.delete(tenant, earlier.id)
    alone = await library.documents.get(tenant, dated.id)
    assert alone.family_id is None and alone.is_current
    assert [d.id for d in await library.documents.versions(tenant, dated.id)] == [dated.id]


async def test_a_version_of_another_tenants_document_is_refused_and_stores_nothing(
        library: Library, tenant: UUID, other_tenant: UUID, tmp_path: Path) -> None:
    theirs = await library.add(other_tenant, make_text(tmp_path / "v1.txt", "Rule 1.1 Old."),
                               title="Globex Rules", version="1")
    files_before = sorted(p.name for p in library.files_root.rglob("*") if p.is_file())
    data = b"Rule 1.1 A new text."
    for ref in (str(theirs.id), "Globex Rules", str(UUID(int=7))):
        with pytest.raises(NotFound, match="to add a version to"):
            await library.ingestion.submit(tenant, data=data, filename="v2.txt", title="",
                                           doc_type=None, version="2", version_of=ref)
    assert await library.documents.list(tenant) == []
    assert sorted(p.name for p in library.files_root.rglob("*") if p.is_file()) == files_before
    with pytest.raises(NotFound):
        await library.documents.versions(tenant, theirs.id)
    assert [d.id for d in await library.documents.versions(other_tenant, theirs.id)] == \
        [theirs.id]


async def test_a_new_version_needs_a_label_of_its_own_and_its_documents_type(
        library: Library, tenant: UUID, tmp_path: Path) -> None:
    base = await library.add(tenant, make_text(tmp_path / "v1.txt", "Rule 1.1 Old."),
                             title="Fund Rules", version="2023")
    data = b"Rule 1.1 New."
    for version, doc_type, message in (("", None, "needs its version label"),
                                       ("2023", None, "already has a version 2023"),
                                       ("2024", "policy", "cannot be a Company Policy")):
        with pytest.raises(InvalidRequest, match=message):
            await library.ingestion.submit(
                tenant, data=data, filename="v2.txt", title="", version=version,
                doc_type=None if doc_type is None else DocType(doc_type),
                version_of=str(base.id))
    assert [d.id for d in await library.documents.list(tenant)] == [base.id]
    # Two families under one title: the title alone does not say which.
    await library.add(tenant, make_text(tmp_path / "other.txt", "Rule 9.9 Other."),
                      title="fund rules", version="x")
    with pytest.raises(InvalidRequest, match="2 documents are titled"):
        await library.ingestion.submit(tenant, data=data, filename="v2.txt", title="",
                                       doc_type=None, version="2024", version_of="Fund Rules")


async def test_the_follow_up_job_stores_the_change_report(
        versioned: tuple[Library, VersionChanges], database: Database) -> None:
    library, changes = versioned
    tenant = await library.documents.ensure_tenant("acme")
    other = await library.documents.ensure_tenant("globex")
    old, new = await _two_versions(library, tenant)
    await library.ingestion.run_follow_ups()
    assert await changes.stored(tenant, old.id, new.id)
    report = await changes.report(tenant, old.id, new.id)
    assert (report.old_name, report.new_name) == (f"{TITLE} (2003)", f"{TITLE} (2014)")
    [renamed] = [c for c in report.changes if c.section.endswith("646.143")]
    assert "Firearms, and Explosives" in (renamed.new_quote or "")

    # The report is read from the store, not made again.
    async with database.system_session() as session:
        await session.execute(text(
            "UPDATE change_reports SET report = jsonb_set(report, '{old_name}', '\"stored\"')"))
    assert (await changes.report(tenant, old.id, new.id)).old_name == "stored"

    # Another tenant sees neither the chain nor the report.
    assert await PostgresChangeReportStore(database).get(other, old.id, new.id) is None
    with pytest.raises(NotFound):
        await changes.report(other, old.id, new.id)
    with pytest.raises(NotFound):
        await library.documents.versions(other, new.id)


async def test_a_change_report_job_cut_short_is_run_again_on_the_next_start(
        versioned: tuple[Library, VersionChanges], database: Database) -> None:
    """The job's worker died mid-job (the job left `doing`, no report stored): the next
    worker to start recovers it and the report is stored, once."""
    library, changes = versioned
    tenant = await library.documents.ensure_tenant("acme")
    old = await library.add(tenant, OLD, title=TITLE, version="2003")
    submitted = await library.ingestion.submit(
        tenant, data=NEW.read_bytes(), filename=NEW.name, title="", doc_type=None,
        version="2014", version_of=TITLE)
    await library.queue.run_worker(wait=False, queues=[INGEST_QUEUE])  # no follow-up yet
    new = submitted.document
    async with database.system_session() as session:
        # As a worker that took the job and died: `doing`, with no live worker behind it.
        taken = await session.execute(text(
            "UPDATE procrastinate_jobs SET status = 'doing' "
            "WHERE task_name = :job AND args->>'document_id' = :d RETURNING id"),
            {"job": CHANGES_JOB, "d": str(new.id)})
        assert len(taken.all()) == 1
    assert not await changes.stored(tenant, old.id, new.id)
    await library.ingestion.run_follow_ups()
    assert await changes.stored(tenant, old.id, new.id)
    async with database.system_session() as session:
        count = (await session.execute(text("SELECT count(*) FROM change_reports"))).scalar()
        status = (await session.execute(text(
            "SELECT status FROM procrastinate_jobs WHERE task_name = :job "
            "AND args->>'document_id' = :d"), {"job": CHANGES_JOB, "d": str(new.id)})).scalar()
    assert count == 1 and status == "succeeded"
