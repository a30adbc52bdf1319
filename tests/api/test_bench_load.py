"""The load bench's driver, pointed at the in-process app for a couple of seconds."""

from __future__ import annotations

import asyncio

import httpx
from fastapi import FastAPI

from regintel.bench import load
from regintel.container import Container


async def test_load_bench_drives_users_and_reports(api_app: FastAPI,
                                                   container: Container) -> None:
    async def ingest_while_waiting() -> None:
        # No worker runs beside the test app: play its part for the bench's upload.
        for _ in range(240):
            await container.queue.run_worker(wait=False)
            await asyncio.sleep(0.25)

    container.register_jobs()
    worker = asyncio.create_task(ingest_while_waiting())
    try:
        figures = await load.run("http://test", users=2, seconds=2,
                                 transport=httpx.ASGITransport(app=api_app))
    finally:
        worker.cancel()
    assert figures["errors"] == 0, figures["error_samples"]
    assert figures["turns"] >= 2 and figures["first_event_p95_ms"] is not None
    assert figures["throughput_turns_per_s"] > 0
    assert [row[0] for row in load.table_rows(figures)][:5] == [
        "users", "document", "settle_s", "seconds", "turns"]
    assert figures["document"] == "built-in policy" and figures["settle_s"] == 0.0


async def test_a_rate_limited_turn_is_waited_out_not_counted_as_an_error() -> None:
    def limited(request: httpx.Request) -> httpx.Response:
        return httpx.Response(429, headers={"Retry-After": "2"},
                              json={"code": "rate_limited"})

    tally = load._Tally()
    async with httpx.AsyncClient(base_url="http://test",
                                 transport=httpx.MockTransport(limited)) as client:
        wait = await load._turn(client, "token", "doc", "How long are records kept?", tally)
    assert wait == 2.0 and tally.throttled == 1 and tally.errors == []
