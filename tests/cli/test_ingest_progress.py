"""``regintel ingest`` shows its progress (issue 38): a Rich display on stderr of the chunks
embedded and the documents done, with the time left; stdout stays one line per document."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.cli.conftest import RunCli
from tests.contract.library.files import make_text


def _rules(n: int) -> str:
    return "\n\n".join(
        f"Rule {n}.{i} Record keeping {i}. A Relevant Person must keep the records of class {i} "
        f"for at least {i % 9 + 1} years and produce them to the Regulator on request within "
        f"{i % 5 + 2} business days. " * 3 for i in range(1, 120))


@pytest.mark.slow
def test_ingest_shows_chunks_embedded_and_documents_done(run_cli: RunCli,
                                                         tmp_path: Path) -> None:
    first = make_text(tmp_path / "first.txt", _rules(1))
    second = make_text(tmp_path / "second.txt", _rules(2))
    result = run_cli("ingest", str(first), str(second), "--type", "regulation",
                     "--tenant", "progress", timeout=600)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 2 and all(" ready " in line for line in lines), lines
    counts = [re.search(r"ready\s+(\d+) chunks", line) for line in lines]
    assert all(counts), lines
    chunks = sum(int(m.group(1)) for m in counts if m is not None)
    assert chunks > 32  # more than one batch of the ingestion's: the bar moved in steps
    assert re.search(rf"Chunks embedded .*{chunks}/{chunks}", result.stderr), result.stderr
    assert re.search(r"Documents ready .*2/2", result.stderr), result.stderr
    assert "left" in result.stderr
