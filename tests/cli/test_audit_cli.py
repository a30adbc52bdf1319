"""``regintel bench audit --policy/--regulation/--gaps`` on small real files (scored, with
each planted gap hit or missed), its refusals of incomplete arguments, and ``regintel audit
export`` of a thread's audit, read back with openpyxl."""

from __future__ import annotations

import json
from pathlib import Path

from openpyxl import load_workbook

from tests.cli.conftest import RunCli

RULES = """Test Retention Rules

1. RECORDS

1.1 Retention
1.1.1 A Relevant Person must keep all customer due diligence records for at least six years
from the date on which the business relationship ends.
1.1.2 A Relevant Person must provide AML training to all Employees at least annually.
"""
POLICY = """# Kite Brokers Ltd - Records Policy

1. Records. The Firm keeps customer due diligence records for five years from the date the
business relationship ends.

2. Training. All staff complete AML training every two years.
"""
GAPS = [{"id": "K1", "kind": "contradiction", "rule": "1.1.1",
         "obligation": "keep records for at least six years", "policy_clause": "1",
         "policy_text": "records for five years from the date the business relationship ends",
         "match_terms": ["at least six years"]},
        {"id": "K2", "kind": "contradiction", "rule": "1.1.2",
         "obligation": "training at least annually", "policy_clause": "2",
         "policy_text": "AML training every two years", "match_terms": ["at least annually"]}]


def _files(tmp_path: Path) -> tuple[Path, Path, Path]:
    rules, policy, gaps = tmp_path / "rules.txt", tmp_path / "kite_policy.md", \
        tmp_path / "kite_gaps.json"
    rules.write_text(RULES, encoding="utf-8")
    policy.write_text(POLICY, encoding="utf-8")
    gaps.write_text(json.dumps(GAPS), encoding="utf-8")
    return rules, policy, gaps


def test_bench_audit_scores_any_policy(run_cli: RunCli, tmp_path: Path) -> None:
    rules, policy, gaps = _files(tmp_path)
    done = run_cli("bench", "audit", "--policy", str(policy), "--regulation", str(rules),
                   "--gaps", str(gaps), "--data-dir", str(tmp_path / "data"), "--json",
                   timeout=600)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    [row] = figures["policies"]
    assert row["policy"] == "kite" and row["engine"] == "offline"
    assert row["gaps"] == 2 and [g["id"] for g in row["by_gap"]] == ["K1", "K2"]
    assert row["found"] == sum(g["found"] for g in row["by_gap"])
    assert row["recall"] == round(row["found"] / 2, 3)
    assert 0 <= row["matching_findings"] <= row["findings"]
    assert row["quotes_fabricated"] == 0
    assert figures["pooled"]["gaps"] == 2
    assert len(row["findings_list"]) == row["findings"]
    found = {gap for f in row["findings_list"] for gap in f["finds"]}
    assert found == {g["id"] for g in row["by_gap"] if g["found"]}


def test_bench_audit_refuses_incomplete_arguments(run_cli: RunCli, tmp_path: Path) -> None:
    rules, policy, gaps = _files(tmp_path)
    no_gaps = run_cli("bench", "audit", "--policy", str(policy), "--regulation", str(rules))
    assert no_gaps.returncode == 2 and "--policy needs --gaps" in no_gaps.stderr
    no_rules = run_cli("bench", "audit", "--policy", str(policy), "--gaps", str(gaps))
    assert no_rules.returncode == 2 and "1 to 5 --regulation" in no_rules.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    nothing = run_cli("bench", "audit", "--policies", str(empty), "--regulation", str(rules))
    assert nothing.returncode == 2 and "no policy with its gap file" in nothing.stderr


def test_audit_export_writes_the_threads_audit(run_cli: RunCli, tmp_path: Path) -> None:
    rules, policy, _ = _files(tmp_path)
    ids = []
    for path, doc_type in ((rules, "regulation"), (policy, "policy")):
        done = run_cli("ingest", str(path), "--type", doc_type, "--json", timeout=300)
        assert done.returncode == 0, done.stderr
        ids.append(json.loads(done.stdout.splitlines()[-1])["document_id"])
    asked = run_cli("ask", "Audit the policy against the rules", "--action", "audit",
                    "--doc", ids[1], "--doc", ids[0], "--json", timeout=300)
    assert asked.returncode == 0, asked.stderr
    response = json.loads(asked.stdout)
    assert response["audit"]["findings"]
    out = tmp_path / "report.xlsx"
    done = run_cli("audit", "export", response["thread_id"], "--format", "xlsx",
                   "--out", str(out))
    assert done.returncode == 0, done.stderr
    book = load_workbook(out)
    assert book["Findings"].max_row - 1 == len(response["audit"]["findings"])
    missing = run_cli("audit", "export", "00000000-0000-0000-0000-000000000000",
                      "--format", "csv")
    assert missing.returncode == 2 and "no conversation" in missing.stderr
