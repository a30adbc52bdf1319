"""``regintel bench changes`` through the library: a real pair of versions (27 CFR Part 646,
2003 and 2014) ingested as one document's versions, its report read as the product serves it
and scored against the record of the amendment; the same scores as reading the two files."""

from __future__ import annotations

from pathlib import Path

import pytest

from regintel.bench import changes
from regintel.container import Container

ATF = Path(__file__).resolve().parents[3] / "shared" / "data" / "versions" / "atf"
if not ATF.is_dir():
    ATF = Path("/work/shared/data/versions/atf")


@pytest.mark.skipif(not (ATF / "646").is_dir(), reason="../shared/data/versions not beside us")
async def test_the_library_serves_the_report_the_files_give(container: Container) -> None:
    served = await changes.run_library(container, ATF, ["646"])
    read = changes.run(ATF, ["646"])
    [pair] = served["pairs"]
    assert (pair["part"], pair["from"], pair["to"]) == ("646", "03-1657", "2014-18842")
    assert pair["missed"] == [] and pair["changes"] == read["pairs"][0]["changes"]
    pooled = served["pooled"]
    assert pooled["section_recall"] == read["pooled"]["section_recall"] == 1.0
    assert pooled["paragraph_recall"] == 1.0
    documents = await container.documents.list(
        await container.documents.ensure_tenant(changes.LIBRARY_TENANT))
    assert sorted((d.version, d.is_current) for d in documents) == [
        ("03-1657", False), ("2014-18842", True)]
