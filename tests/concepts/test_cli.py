"""``regintel graph seed|export|import`` and ``regintel bench concepts`` through the real
console script, on a throwaway data directory with its own embedded stores."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.cli.conftest import cli_env, regintel_executable
from tests.concepts.conftest import SHARED
from tests.conftest import TEST_SECRET

TAXONOMY = """
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
<https://bank.example/t/kyc> a skos:Concept ; skos:prefLabel "Know Your Customer"@en ;
    skos:altLabel "KYC"@en .
"""


def _run(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = cli_env(data_dir, REGINTEL_SECRET_KEY=TEST_SECRET,
                  REGINTEL_DEMO_DATA_DIR=str(SHARED))
    return subprocess.run([regintel_executable(), *args], capture_output=True, text=True,
                          timeout=600, env=env, check=False)


@pytest.mark.slow
def test_graph_seed_export_and_import(server_dir: Path) -> None:
    seeded = _run(server_dir, "graph", "seed", "--only", "gdpr", "--json")
    assert seeded.returncode == 0, seeded.stderr
    assert json.loads(seeded.stdout.strip().splitlines()[-1])["concepts"] == 26

    taxonomy = server_dir / "kyc.ttl"
    taxonomy.write_text(TAXONOMY)
    imported = _run(server_dir, "graph", "import", str(taxonomy), "--domain", "AML",
                    "--jurisdiction", "ADGM", "--json")
    assert imported.returncode == 0, imported.stderr
    assert json.loads(imported.stdout.strip().splitlines()[-1])["concepts"] == 1

    out = server_dir / "graph.ttl"
    exported = _run(server_dir, "graph", "export", "--format", "ttl", "--output", str(out))
    assert exported.returncode == 0, exported.stderr
    turtle = out.read_text()
    assert '"Know Your Customer"@en' in turtle and '"personal data"@en' in turtle

    as_json = _run(server_dir, "graph", "export", "--format", "json")
    assert as_json.returncode == 0, as_json.stderr
    assert len(json.loads(as_json.stdout)["nodes"]) == 26 + 99 + 1

    bad = _run(server_dir, "graph", "import", str(SHARED / "README.md"))
    assert bad.returncode == 2 and "Turtle" in bad.stderr


def test_bench_concepts_reports_every_split(server_dir: Path) -> None:
    done = _run(server_dir, "bench", "concepts", "--json")
    assert done.returncode == 0, done.stderr
    sets = {s["set"]: s for s in json.loads(done.stdout)["sets"]}
    assert {s["split"] for s in sets.values()} == {"tune", "held-out"}
    assert sets["gdpr-art4-definitions"]["recall"] == 1.0
    assert sets["gdpr-questions-mentions"]["precision"] >= 0.9
