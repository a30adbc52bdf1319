"""Kill everything with SIGKILL in the middle of writes; the next start must come up by itself
(stale pid files, sockets and locks) with every acknowledged write intact in both stores."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest
from falkordb import FalkorDB

from regintel.runtime.stores import EmbeddedStores

WRITER = r"""
import sys
from pathlib import Path
import psycopg
from falkordb import FalkorDB
from regintel.runtime.stores import EmbeddedStores

endpoints = EmbeddedStores(Path(sys.argv[1]), postgres=True, graph=True).open()
url = endpoints.postgres.url()
with psycopg.connect(url, autocommit=True) as conn:
    conn.execute("CREATE TABLE IF NOT EXISTS ledger (id int PRIMARY KEY, payload text)")
graph = FalkorDB(unix_socket_path=str(endpoints.graph_socket)).select_graph("durability")
print("READY", flush=True)
i = 0
with psycopg.connect(url) as conn:
    while True:
        conn.execute("INSERT INTO ledger VALUES (%s, repeat('x', 4000))", (i,))
        conn.commit()
        graph.query("CREATE (:Concept {key: $k})", {"k": str(i)})
        print(i, flush=True)  # both writes acknowledged
        i += 1
"""


def _pid(path: Path, line: int = 0) -> int:
    return int(path.read_text().splitlines()[line])


@pytest.mark.slow
def test_acknowledged_writes_survive_sigkill_of_everything(server_dir: Path) -> None:
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(server_dir)],
                              stdout=subprocess.PIPE, text=True)
    assert writer.stdout is not None
    acknowledged: list[int] = []
    try:
        assert writer.stdout.readline().strip() == "READY"
        deadline = time.monotonic() + 60
        while len(acknowledged) < 300 and time.monotonic() < deadline:
            acknowledged.append(int(writer.stdout.readline()))
        # Mid-write: the writer is still looping while its servers die under it.
        os.kill(_pid(server_dir / "pg" / "postmaster.pid"), signal.SIGKILL)
        os.kill(_pid(server_dir / "graph" / "redis.pid"), signal.SIGKILL)
        writer.kill()
        for line in writer.stdout:
            if line.strip().isdigit():
                acknowledged.append(int(line))
    finally:
        writer.kill()
        writer.wait()
        writer.stdout.close()
    assert len(acknowledged) >= 300
    last = acknowledged[-1]

    stores = EmbeddedStores(server_dir, postgres=True, graph=True)
    endpoints = stores.open()  # must recover: stale postmaster.pid, redis.pid, socket, locks
    try:
        assert endpoints.postgres is not None and endpoints.graph_socket is not None
        with psycopg.connect(endpoints.postgres.url()) as conn:
            ids = {r[0] for r in conn.execute("SELECT id FROM ledger WHERE id <= %s", (last,))}
        assert ids == set(range(last + 1))
        graph = FalkorDB(unix_socket_path=str(endpoints.graph_socket)).select_graph("durability")
        keys = {int(r[0]) for r in graph.ro_query("MATCH (n:Concept) RETURN n.key").result_set}
        assert set(range(last + 1)) <= keys
    finally:
        stores.close()
    assert stores.postgres is not None and stores.postgres.running_endpoint() is None
    assert stores.graph is not None and not stores.graph.is_running()
