from __future__ import annotations

import json
import threading
import uuid
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote

import psycopg
import pytest

from regintel import __version__
from regintel.adapters.postgres.migrate import head_revision
from regintel.runtime.falkordb import EmbeddedFalkorDB
from regintel.runtime.postgres import EmbeddedPostgres, PostgresEndpoint
from tests.cli.conftest import RunCli


def test_version(run_cli: RunCli) -> None:
    result = run_cli("--version")
    assert result.returncode == 0 and result.stdout.strip() == f"regintel {__version__}"


def test_migrate_on_empty_data_dir_then_noop_then_downgrade(run_cli: RunCli,
                                                            server_dir: Path) -> None:
    first = run_cli("migrate")
    assert first.returncode == 0, first.stderr
    head = head_revision()
    assert f"migrated: base → {head}" in first.stdout
    second = run_cli("migrate")
    assert second.returncode == 0 and f"already at {head}; nothing to do" in second.stdout
    down = run_cli("migrate", "--downgrade", "--revision", "base")
    assert down.returncode == 0 and f"migrated: {head} → base" in down.stdout
    # The last user stopped the embedded servers on exit.
    assert EmbeddedPostgres(server_dir / "pg").running_endpoint() is None
    assert not EmbeddedFalkorDB(server_dir / "graph").is_running()


def test_serve_refuses_to_start_without_a_secret(run_cli: RunCli, server_dir: Path) -> None:
    result = run_cli("serve")
    assert result.returncode == 3
    assert "REGINTEL_SECRET_KEY is not set" in result.stderr and "hint:" in result.stderr
    assert not (server_dir / "pg").exists()  # refused before touching any store


def test_external_database_without_pgvector_is_named(run_cli: RunCli,
                                                     pg_endpoint: PostgresEndpoint) -> None:
    """A server whose catalogue offers no 'vector' extension. We shadow the catalogue view on a
    real Postgres (search_path puts our schema first) because no pgvector-less server ships."""
    name = f"novec_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_endpoint.url("postgres"), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        with psycopg.connect(pg_endpoint.url(name), autocommit=True) as conn:
            conn.execute("CREATE SCHEMA shadow")
            conn.execute("CREATE VIEW shadow.pg_available_extensions AS SELECT * FROM "
                         "pg_catalog.pg_available_extensions WHERE name <> 'vector'")
        url = pg_endpoint.url(name) + "&options=" + quote("-c search_path=shadow,pg_catalog")
        result = run_cli("migrate", REGINTEL_DATABASE_URL=url)
        assert result.returncode == 3, result.stderr
        assert "pgvector extension ('vector')" in result.stderr
        with psycopg.connect(pg_endpoint.url(name)) as conn:  # nothing was created
            tables = conn.execute(
                "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone()
        assert tables == (0,)
    finally:
        with psycopg.connect(pg_endpoint.url("postgres"), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_bench_startup_prints_json_figures(run_cli: RunCli) -> None:
    result = run_cli("bench", "startup", "--json", "--runs", "1")
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    for key in ("cold_s", "warm_s", "warm_max_s", "migrate_s", "warm_postgres_s", "warm_graph_s"):
        assert isinstance(figures[key], float) and figures[key] > 0
    table = run_cli("bench", "startup", "--runs", "1")
    assert "warm (median of 1)" in table.stdout


def test_external_database_url_is_used_instead_of_embedded(run_cli: RunCli, empty_db_url: str,
                                                           server_dir: Path) -> None:
    result = run_cli("migrate", REGINTEL_DATABASE_URL=empty_db_url)
    assert result.returncode == 0, result.stderr
    with psycopg.connect(empty_db_url) as conn:
        version = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    assert version == (head_revision(),)
    assert not (server_dir / "pg").exists()  # no embedded Postgres was started


def test_worker_starts_and_stops_on_interrupt(server_dir: Path, empty_db_url: str) -> None:
    import signal
    import subprocess

    from tests.cli.conftest import cli_env, regintel_executable

    subprocess.run([regintel_executable(), "migrate"], check=True, capture_output=True,
                   env=cli_env(server_dir, REGINTEL_DATABASE_URL=empty_db_url), timeout=120)
    env = cli_env(server_dir, REGINTEL_DATABASE_URL=empty_db_url)
    worker = subprocess.Popen([regintel_executable(), "worker"], stderr=subprocess.PIPE,
                              text=True, env=env)
    assert worker.stderr is not None
    # The worker's stderr is read all along, in a thread: a pipe left unread fills up, and a
    # process blocked writing its log never gets to handle the interrupt.
    lines: list[str] = []
    running = threading.Event()

    def read(stream: IO[str]) -> None:
        for line in stream:
            lines.append(line)
            if "worker running" in line:
                running.set()

    reader = threading.Thread(target=read, args=(worker.stderr,), daemon=True)
    reader.start()
    try:
        assert running.wait(timeout=120), "".join(lines)
        worker.send_signal(signal.SIGINT)
        try:
            # A graceful stop waits for the start-up purge jobs it may be running (a graph
            # call times out after 30 s), on a machine the rest of the suite keeps busy.
            code = worker.wait(timeout=120)
        except subprocess.TimeoutExpired:
            raise AssertionError("the worker did not stop on SIGINT; it said:\n"
                                 + "".join(lines[-60:])) from None
        reader.join(timeout=10)
        assert code == 0, "".join(lines)
        assert any("worker stopped" in line for line in lines), "".join(lines)
    finally:
        worker.kill()
        worker.wait()
        reader.join(timeout=10)
        worker.stderr.close()


def test_graph_purge_forgets_old_deletions(run_cli: RunCli) -> None:
    result = run_cli("graph", "purge", "--older-than-days", "30", "--json")
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["older_than_days"] == 30 and figures["purged"] >= 0


def test_bench_answers_counts_gold_citations_on_real_obliqa_documents(run_cli: RunCli,
                                                                      tmp_path: Path) -> None:
    """Four ObliQA documents and the 16 dev questions whose gold passages all lie in them,
    through the library search and the offline composition."""
    obliqa = Path(__file__).resolve().parents[3] / "shared" / "data" / "obliqa"
    docs = {20, 25, 32, 38}
    corpus = tmp_path / "passages"
    corpus.mkdir()
    for doc in docs:
        (corpus / f"{doc}.json").write_text((obliqa / "passages" / f"{doc}.json").read_text())
    questions = [q for q in json.loads((obliqa / "ObliQA_dev.json").read_text())
                 if all(int(p["DocumentID"]) in docs for p in q["Passages"])]
    path = tmp_path / "questions.json"
    path.write_text(json.dumps(questions))
    result = run_cli("bench", "answers", "--corpus", str(corpus), "--questions", str(path),
                     "--json", timeout=600)
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["questions"] == len(questions) == 16
    assert figures["passages"] == sum(len(json.loads((corpus / f"{d}.json").read_text()))
                                      for d in docs)
    assert figures["citations_per_answer"] >= figures["passages_per_answer"] >= 1
    assert 0 < figures["gold_passage_share"] <= 1
    # A small corpus all about the questions' documents: most answers show a gold passage.
    assert 0 < figures["gold_share"] <= 1 and figures["answers_citing_gold"] >= 0.5
    assert sum(f["questions"] for f in figures["folds"].values()) == 16
    _check_confidence_figures(figures, questions=16)
    limited = run_cli("bench", "answers", "--corpus", str(corpus), "--questions", str(path),
                      "--limit", "5", "--json", timeout=600)
    assert limited.returncode == 0, limited.stderr
    _check_confidence_figures(json.loads(limited.stdout), questions=5)
    table = run_cli("bench", "answers", "--corpus", str(corpus), "--questions", str(path),
                    "--fold", "1", timeout=600)
    assert "fold 1 (held-out)" in table.stdout and "answers citing gold" in table.stdout
    assert "Answer confidence" in table.stdout and "tier high" in table.stdout


def _check_confidence_figures(figures: dict[str, Any], *, questions: int) -> None:
    """Each answer falls in one tier and one reliability bin; the rates and the calibration
    error are what the counts say."""
    assert figures["questions"] == questions
    tiers = figures["tiers"]
    assert set(tiers) == {"high", "medium", "low"}
    assert sum(t["questions"] for t in tiers.values()) == questions
    citing = sum(t["questions"] * (t["answers_citing_gold"] or 0) for t in tiers.values())
    assert abs(citing - figures["answers_citing_gold"] * questions) < 0.01 * questions + 1e-6
    bins = figures["reliability"]
    assert len(bins) == 10 and sum(b["count"] for b in bins) == questions
    for i, b in enumerate(bins):
        assert b["bin"] == [pytest.approx(i / 10), pytest.approx((i + 1) / 10)]
        if b["count"]:
            assert i / 10 <= b["predicted"] <= (i + 1) / 10 and 0 <= b["observed"] <= 1
    ece = sum(b["count"] * abs(b["predicted"] - b["observed"]) for b in bins if b["count"])
    assert figures["ece"] == pytest.approx(ece / questions, abs=1e-3)


def test_bench_ingest_times_the_follow_ups_apart(run_cli: RunCli, tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    rules.mkdir()
    for n in (1, 2):
        (rules / f"rules{n}.txt").write_text(
            f"Test Rules {n}\n\n{n}. RECORD KEEPING\n\n{n}.1 Records\n"
            f"{n}.1.1 A Relevant Person must keep the records of each customer for at least "
            f"{n + 5} years.\n{n}.1.2 A Relevant Person must make the records available to "
            "the Regulator on request.\n")
    result = run_cli("bench", "ingest", "--dir", str(rules), "--follow-ups", "--json",
                     timeout=300)
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["ready"] == 2 and figures["chunks"] >= 2
    # Apart from the ingestion's own embedding: the two rules of each document, in context.
    assert figures["follow_up_texts"] == 4 and figures["follow_ups_s"] > 0
    assert figures["embedding_s"] > 0 and figures["total_over_embedding"] is not None
