"""What changed between two versions stored in the library (issue 48): the report read from
each document's stored chunks, with both quotes verbatim; another organisation's document is
not found; a version not ready or the same document twice is a clear error."""

from __future__ import annotations

from regintel.container import Container
from tests.api.conftest import User, ingest, upload

OLD = """PART 9 RECORDS

§ 9.1 Scope.
(a) This part applies to every licensee.

§ 9.2 Retention.
(a) A licensee must keep each record for five years.
(b) A licensee should keep records in a secure place.

§ 9.3 Reports.
(a) A licensee must report a loss within 30 days.
"""
NEW = """PART 9 RECORDS

§ 9.1 Scope.
(a) This part applies to every licensee.

§ 9.2 Retention.
(a) A licensee must keep each record for six years.
(b) A licensee must keep records in a secure place.

§ 9.3 Reports.
(a) A licensee must report a loss within  30 days.
(b) A licensee must report a theft within 10 days.
"""


async def _version(user: User, container: Container, text: str, version: str) -> str:
    response = await upload(user, text.encode(), f"records-{version}.txt",
                            title="Records Rules", doc_type="regulation", version=version)
    assert response.status_code == 201, response.text
    document = await ingest(container, user, response.json()["document"]["id"])
    assert document["status"] == "ready", document
    return str(document["id"])


async def test_the_changes_between_two_stored_versions(alice: User, mallory: User,
                                                       container: Container) -> None:
    old = await _version(alice, container, OLD, "2020")
    new = await _version(alice, container, NEW, "2024")
    response = await alice.client.get(f"/api/documents/{new}/changes", params={"from": old})
    assert response.status_code == 200, response.text
    report = response.json()
    assert (report["old_name"], report["new_name"]) == ("Records Rules (2020)",
                                                        "Records Rules (2024)")
    by_new = {c["new_provision"]: c for c in report["changes"]}
    period = by_new["9.2(a)"]
    assert period["kind"] == "amended" and period["substantive"]
    assert "six years" in period["new_quote"] and "five years" in period["old_quote"]
    assert by_new["9.2(b)"]["substantive"]  # "should" became "must"
    assert by_new["9.3(b)"]["kind"] == "inserted" and by_new["9.3(b)"]["old_provision"] is None
    assert not by_new["9.3(a)"]["substantive"]  # a doubled space only
    for change in report["changes"]:
        assert change["new_quote"] is None or change["new_quote"] in NEW.replace("  ", " ") \
            or change["new_quote"] in NEW
        assert change["old_quote"] is None or change["old_quote"] in OLD

    # Another organisation does not see the versions; the same document twice is an error.
    assert (await mallory.client.get(f"/api/documents/{new}/changes",
                                 params={"from": old})).status_code == 404
    same = await alice.client.get(f"/api/documents/{new}/changes", params={"from": new})
    assert same.status_code == 400 and "itself" in same.json()["title"]
