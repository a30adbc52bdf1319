"""``regintel bench startup``: cold and warm start of the embedded stores.

Cold = a fresh data directory (initdb, create the database, first FalkorDB start) plus the
migrations. Warm = starting both stores again on that existing, stopped data directory, which is
what every later command pays. Times are wall clock on this machine.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from regintel.adapters.postgres.migrate import migrate
from regintel.runtime.falkordb import EmbeddedFalkorDB
from regintel.runtime.postgres import EmbeddedPostgres


@dataclass(frozen=True)
class StartTimes:
    postgres_s: float
    graph_s: float

    @property
    def total_s(self) -> float:
        return self.postgres_s + self.graph_s


def _start_both(pg: EmbeddedPostgres, graph: EmbeddedFalkorDB) -> StartTimes:
    t0 = time.perf_counter()
    pg.start()
    t1 = time.perf_counter()
    graph.start()
    t2 = time.perf_counter()
    return StartTimes(t1 - t0, t2 - t1)


def run(data_dir: Path | None = None, *, warm_runs: int = 5) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="regintel-bench-") as tmp:
        root = data_dir or Path(tmp)
        pg = EmbeddedPostgres(root / "pg")
        graph = EmbeddedFalkorDB(root / "graph")
        try:
            cold = _start_both(pg, graph)
            t0 = time.perf_counter()
            migrate(pg.start().url())
            migrate_s = time.perf_counter() - t0
            warm: list[StartTimes] = []
            for _ in range(warm_runs):
                graph.stop()
                pg.stop()
                warm.append(_start_both(pg, graph))
        finally:
            graph.stop()
            pg.stop()
    totals = [w.total_s for w in warm]
    return {
        "cold_s": round(cold.total_s, 3),
        "cold_postgres_s": round(cold.postgres_s, 3),
        "cold_graph_s": round(cold.graph_s, 3),
        "migrate_s": round(migrate_s, 3),
        "warm_s": round(statistics.median(totals), 3),
        "warm_max_s": round(max(totals), 3),
        "warm_postgres_s": round(statistics.median(w.postgres_s for w in warm), 3),
        "warm_graph_s": round(statistics.median(w.graph_s for w in warm), 3),
        "warm_runs": warm_runs,
    }


def table_rows(figures: dict[str, Any]) -> list[list[Any]]:
    return [
        ["cold (fresh data dir)", figures["cold_postgres_s"], figures["cold_graph_s"],
         figures["cold_s"]],
        ["migrate (empty → head)", "", "", figures["migrate_s"]],
        [f"warm (median of {figures['warm_runs']})", figures["warm_postgres_s"],
         figures["warm_graph_s"], figures["warm_s"]],
        ["warm (worst)", "", "", figures["warm_max_s"]],
    ]
