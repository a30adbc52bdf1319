"""Versions over HTTP (issue 48): uploading a real pair of versions of 27 CFR Part 646 as one
document's versions, the chain and the listing saying which is current, the change report
prepared at ingestion served from the store; another organisation sees no chain and no
report, and cannot add a version to a document it does not have."""

from __future__ import annotations

import asyncio
from pathlib import Path
from uuid import UUID

import pytest
from sqlalchemy import text

from regintel.container import Container
from tests.api.conftest import User, ingest, upload

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
if not SHARED.is_dir():
    SHARED = Path("/work/shared/data")
PART_646 = SHARED / "versions" / "atf" / "646"
OLD, NEW = PART_646 / "03-1657.txt", PART_646 / "2014-18842.txt"
TITLE = "27 CFR Part 646"

pytestmark = pytest.mark.skipif(not OLD.is_file(),
                                reason="../shared/data/versions is not beside the project")


async def _ready(user: User, container: Container, path: Path, **fields: str) -> str:
    response = await upload(user, await asyncio.to_thread(path.read_bytes), path.name, title=TITLE,
                            doc_type="regulation", **fields)
    assert response.status_code == 201, response.text
    document = await ingest(container, user, response.json()["document"]["id"])
    assert document["status"] == "ready", document
    return str(document["id"])


async def test_a_new_version_over_http(alice: User, mallory: User,
                                       container: Container) -> None:
    old = await _ready(alice, container, OLD, version="2003", effective="2003-01-24")
    new = await _ready(alice, container, NEW, version="2014", version_of=old,
                       effective="2014-08-11")

    response = await alice.client.get(f"/api/documents/{old}/versions")
    assert response.status_code == 200, response.text
    chain = response.json()
    assert (chain["family_id"], chain["current_id"], chain["count"]) == (old, new, 2)
    assert [(d["id"], d["version"], d["effective_date"], d["is_current"])
            for d in chain["data"]] == [(old, "2003", "2003-01-24", False),
                                        (new, "2014", "2014-08-11", True)]
    listed = {d["id"]: (d["version"], d["is_current"])
              for d in (await alice.client.get("/api/documents")).json()["data"]}
    assert listed[old] == ("2003", False) and listed[new] == ("2014", True)

    # The report was prepared by the ingestion's follow-up: served from the store.
    assert await container.version_changes.stored(alice.tenant_id, UUID(old), UUID(new))
    async with container.database.system_session() as session:
        await session.execute(text(
            "UPDATE change_reports SET report = jsonb_set(report, '{new_name}', '\"as stored\"')"
            " WHERE new_document_id = :new"), {"new": new})
    response = await alice.client.get(f"/api/documents/{new}/changes", params={"from": old})
    assert response.status_code == 200, response.text
    report = response.json()
    assert report["new_name"] == "as stored"
    assert any("Firearms, and Explosives" in (c["new_quote"] or "") for c in report["changes"])

    # Another organisation: no chain, no report, no version of a document it does not have.
    for path in (f"/api/documents/{new}/versions", f"/api/documents/{new}/changes"):
        refused = await mallory.client.get(path, params={"from": old})
        assert refused.status_code == 404, refused.text
    for ref in (old, TITLE):
        refused = await upload(mallory, b"A version of someone else's rules.", "v.txt",
                               title=TITLE, doc_type="regulation", version="2020",
                               version_of=ref)
        assert refused.status_code == 404, refused.text
        assert "to add a version to" in refused.json()["title"]
    assert (await mallory.client.get("/api/documents")).json()["count"] == 0


async def test_a_version_form_is_checked(alice: User, container: Container) -> None:
    old = await _ready(alice, container, OLD, version="2003", effective="")
    data = await asyncio.to_thread(NEW.read_bytes)
    for fields, status, words in (
            ({"version": "2014", "effective": "2014-8-11"}, 422, "YYYY-MM-DD"),
            ({"version": ""}, 400, "needs its version label"),
            ({"version": "2003"}, 400, "already has a version 2003")):
        response = await upload(alice, data, NEW.name, title=TITLE,
                                doc_type="regulation", version_of=old, **fields)
        assert response.status_code == status, response.text
        assert words in response.text
    documents = (await alice.client.get("/api/documents")).json()["data"]
    assert [(d["id"], d["family_id"], d["effective_date"], d["is_current"])
            for d in documents] == [(old, None, None, True)]
