"""``regintel changes`` on two versions stored in the library, by id, as the real command
runs it; another tenant's document is not found."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import RunCli
from tests.contract.library.files import make_text

OLD = ("§ 2.1 Records.\n(a) A firm must keep each record for five years.\n"
       "(b) A firm should review its records yearly.\n")
NEW = ("§ 2.1 Records.\n(a) A firm must keep each record for six years.\n"
       "(b) A firm must review its records yearly.\n")


@pytest.mark.slow
def test_changes_between_two_library_versions(run_cli: RunCli, tmp_path: Path) -> None:
    ids = []
    for name, text, version in (("old.txt", OLD, "2020"), ("new.txt", NEW, "2024")):
        made = run_cli("ingest", str(make_text(tmp_path / name, text)), "--type", "regulation",
                       "--title", "Record Rules", "--version", version, "--json",
                       "--tenant", "acme")
        assert made.returncode == 0, made.stderr
        ids.append(json.loads(made.stdout)["document_id"])
    shown = run_cli("changes", ids[0], ids[1], "--json", "--tenant", "acme")
    assert shown.returncode == 0, shown.stderr
    report = json.loads(shown.stdout)
    assert (report["old_name"], report["new_name"]) == ("Record Rules (2020)",
                                                        "Record Rules (2024)")
    by_new = {c["new_provision"]: c for c in report["changes"]}
    assert "six years" in by_new["2.1(a)"]["new_quote"] and by_new["2.1(a)"]["substantive"]
    assert by_new["2.1(b)"]["substantive"]  # "should" became "must"

    other = run_cli("changes", ids[0], ids[1], "--tenant", "globex")
    assert other.returncode == 2 and "no document" in other.stderr
