"""``regintel ingest --version-of``: a new version of a document through the real command,
the library listing which version is current, the chain, the change report prepared at
ingestion; a version of another tenant's document is refused and stores nothing."""

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
def test_ingest_a_new_version_and_list_the_chain(run_cli: RunCli, tmp_path: Path) -> None:
    first = run_cli("ingest", str(make_text(tmp_path / "old.txt", OLD)), "--type",
                    "regulation", "--title", "Record Rules", "--version", "2020", "--json",
                    "--tenant", "acme")
    assert first.returncode == 0, first.stderr
    old = json.loads(first.stdout)["document_id"]
    second = run_cli("ingest", str(make_text(tmp_path / "new.txt", NEW)), "--version-of",
                     "Record Rules", "--version", "2024", "--effective", "2024-01-01",
                     "--json", "--tenant", "acme")
    assert second.returncode == 0, second.stderr
    made = json.loads(second.stdout)
    new = made["document_id"]
    assert (made["title"], made["version"], made["status"]) == ("Record Rules", "2024", "ready")

    listed = run_cli("documents", "list", "--tenant", "acme")
    lines = {line.split()[1]: line for line in listed.stdout.splitlines()}
    assert lines[old].endswith("Record Rules 2020  [superseded]")
    assert lines[new].endswith("Record Rules 2024  [current]")
    chain = json.loads(run_cli("documents", "versions", new, "--json", "--tenant",
                               "acme").stdout)
    assert [(v["document_id"], v["version"], v["effective_date"], v["is_current"])
            for v in chain] == [(old, "2020", None, False), (new, "2024", "2024-01-01", True)]

    shown = run_cli("changes", old, new, "--json", "--tenant", "acme")
    assert shown.returncode == 0, shown.stderr
    by_new = {c["new_provision"]: c for c in json.loads(shown.stdout)["changes"]}
    assert "six years" in by_new["2.1(a)"]["new_quote"]

    for ref in (old, "Record Rules"):
        refused = run_cli("ingest", str(make_text(tmp_path / "v3.txt", NEW + "(c) More.\n")),
                          "--version-of", ref, "--version", "2025", "--tenant", "globex")
        assert refused.returncode == 2 and "to add a version to" in refused.stderr
    assert json.loads(run_cli("documents", "list", "--json", "--tenant",
                              "globex").stdout) == []
    bad_date = run_cli("ingest", str(tmp_path / "v3.txt"), "--version-of", old, "--version",
                       "2025", "--effective", "1 Jan 2025", "--tenant", "acme")
    assert bad_date.returncode == 2 and "YYYY-MM-DD" in bad_date.stderr
