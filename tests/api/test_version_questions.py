"""Questions about versions in the chat (issue 48): two versions of one regulation in the
library, and the questions a compliance team asks of the new one, answered from the
alignment of the two versions with each change cited to both and its old and new words
quoted verbatim; a question naming one version cites that version only."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from regintel.adapters.postgres.documents_repo import PostgresDocumentStore
from regintel.container import Container
from regintel.domain.documents import Document
from tests.api.conftest import User, ingest, sse_events, upload

V2019 = """Record-Keeping and Reporting Rules

1. RECORDS

1.1 Retention
1.1.1 A Relevant Person must keep all customer records for at least six years from the date
on which the business relationship ends.
1.1.2 A Relevant Person must provide training to all Employees at least annually.

2. REPORTING

2.1 Annual report
2.1.1 A Relevant Person must file its annual report within 30 days after the end of its
financial year.
2.1.2 The annual report must be approved by the Governing Body.
"""
V2025 = V2019.replace("at least six years", "at least seven years").replace(
    "within 30 days", "within 10 days")


async def _version(user: User, container: Container, text: str, **fields: str) -> str:
    response = await upload(user, text.encode(), "rules.txt", title="Reporting Rules",
                            doc_type="regulation", **fields)
    assert response.status_code == 201, response.text
    document = await ingest(container, user, response.json()["document"]["id"])
    assert document["status"] == "ready"
    return str(document["id"])


@pytest.fixture
async def versions(alice: User, container: Container) -> dict[str, str]:
    old = await _version(alice, container, V2019, version="2019", effective="2019-01-01")
    new = await _version(alice, container, V2025, version="2025", version_of=old,
                         effective="2025-01-01")
    return {"old": old, "new": new}


async def _ask(user: User, message: str) -> dict[str, Any]:
    response = await user.client.post("/api/chat", json={"message": message})
    assert response.status_code == 200, response.text
    kind, meta = sse_events(response.text)[-1]
    assert kind == "meta", meta
    return dict(meta)


def _cited(meta: dict[str, Any]) -> set[str]:
    return {str(c["document_id"]) for c in meta["citations"]}


def _quoted_verbatim(meta: dict[str, Any], *texts: str) -> None:
    flat = [" ".join(t.split()) for t in texts]
    for citation in meta["citations"]:
        assert any(" ".join(citation["quote"].split()) in t for t in flat), citation["quote"]
        assert f"“{citation['quote']}” [{citation['n']}]" in meta["answer"]


async def test_what_changed_between_two_named_versions(alice: User,
                                                       versions: dict[str, str]) -> None:
    meta = await _ask(alice, "What changed between the 2019 and 2025 versions?")
    answer = meta["answer"]
    assert "From Reporting Rules (2019) to Reporting Rules (2025), 2 changes" in answer
    assert "seven years, not six" in answer and "within 10 days, not 30" in answer
    assert _cited(meta) == {versions["old"], versions["new"]}
    _quoted_verbatim(meta, V2019, V2025)


async def test_the_versions_of_a_change_question_are_read_once_a_turn(
        alice: User, versions: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Resolution reads the pair; the answer takes it from the turn's state."""
    chains: list[UUID] = []
    read = PostgresDocumentStore.versions

    async def counted(store: PostgresDocumentStore, tenant_id: UUID,
                      document_id: UUID) -> list[Document]:
        chains.append(document_id)
        return await read(store, tenant_id, document_id)

    monkeypatch.setattr(PostgresDocumentStore, "versions", counted)
    meta = await _ask(alice, "What changed between the 2019 and 2025 versions?")
    assert "From Reporting Rules (2019) to Reporting Rules (2025), 2 changes" in meta["answer"]
    assert meta["context"]["versions"] == [versions["old"], versions["new"]]
    assert len(chains) == 1


async def test_the_version_a_search_read_is_named_without_a_read_a_document(
        alice: User, versions: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The notice of the version a library search read is taken from one read of the
    library, not from one read of each document the search found."""
    each: list[UUID] = []
    get = PostgresDocumentStore.get

    async def counted(store: PostgresDocumentStore, tenant_id: UUID,
                      document_id: UUID) -> Document:
        each.append(document_id)
        return await get(store, tenant_id, document_id)

    monkeypatch.setattr(PostgresDocumentStore, "get", counted)
    meta = await _ask(alice, "How long must customer records be kept?")
    assert meta["answer"].splitlines()[0] == "Analyzing Reporting Rules (2025)."
    assert _cited(meta) == {versions["new"]}
    assert each == []


async def test_what_changed_about_a_topic_lists_only_that(alice: User,
                                                          versions: dict[str, str]) -> None:
    meta = await _ask(alice, "What changed about record keeping?")
    answer = meta["answer"]
    assert "seven years, not six" in answer and "10 days" not in answer
    assert _cited(meta) == {versions["old"], versions["new"]}
    _quoted_verbatim(meta, V2019, V2025)


async def test_did_the_new_version_change_a_deadline(alice: User,
                                                     versions: dict[str, str]) -> None:
    meta = await _ask(alice, "Did the new version change the reporting deadline?")
    answer = meta["answer"]
    assert "within 10 days, not 30" in answer and "six years" not in answer
    assert _cited(meta) == {versions["old"], versions["new"]}


async def test_a_question_naming_one_version_cites_only_it(alice: User,
                                                          versions: dict[str, str]) -> None:
    meta = await _ask(alice, "How long must customer records be kept under the 2019 version?")
    assert meta["citations"] and _cited(meta) == {versions["old"]}
    assert "six years" in meta["answer"]
    current = await _ask(alice, "How long must customer records be kept?")
    assert current["citations"] and _cited(current) == {versions["new"]}
    # Searched in the library, the current version answers, and the answer says which.
    assert current["answer"].splitlines()[0] == "Analyzing Reporting Rules (2025)."
    named = await _ask(alice, "What does the Reporting Rules say about customer records?")
    assert named["citations"] and _cited(named) == {versions["new"]}
    assert named["answer"].splitlines()[0] == "Analyzing Reporting Rules (2025)."


ATF = Path(__file__).resolve().parents[3] / "shared" / "data" / "versions" / "atf"
if not ATF.is_dir():
    ATF = Path("/work/shared/data/versions/atf")


@pytest.mark.skipif(not (ATF / "447").is_dir(), reason="../shared/data/versions not beside us")
async def test_what_changed_in_a_part_between_two_real_versions(alice: User,
                                                                container: Container) -> None:
    """27 CFR Part 447 as amended in 2008 and in 2013 (eRegs' versions): the answer is the
    alignment's, every change quoted and cited to the version its words are in."""
    texts = {year: (ATF / "447" / f"{name}.txt").read_text(encoding="utf-8")
             for year, name in (("2008", "E8-23178"), ("2013", "2013-09392"))}
    uploads: dict[str, str] = {}
    for year, effective in (("2008", "2008-10-02"), ("2013", "2013-04-22")):
        response = await upload(alice, texts[year].encode(), f"part447-{year}.txt",
                                title="27 CFR Part 447", doc_type="regulation", version=year,
                                effective=effective,
                                **({"version_of": uploads["2008"]} if uploads else {}))
        assert response.status_code == 201, response.text
        document = await ingest(container, alice, response.json()["document"]["id"])
        uploads[year] = str(document["id"])
    meta = await _ask(alice, "What changed in Part 447 between the 2008 and 2013 versions?")
    answer = meta["answer"]
    assert answer.splitlines()[0] == \
        "Comparing 27 CFR Part 447 (2008) and 27 CFR Part 447 (2013)."
    assert "From 27 CFR Part 447 (2008) to 27 CFR Part 447 (2013)" in answer
    by_document = {c["document_id"]: c for c in meta["citations"]}
    assert set(by_document) == {uploads["2008"], uploads["2013"]}
    for citation in meta["citations"]:
        year = "2008" if citation["document_id"] == uploads["2008"] else "2013"
        assert " ".join(citation["quote"].split()) in " ".join(texts[year].split())
