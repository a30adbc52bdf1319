"""The stub model server in a process of its own (what ``bench llm-overhead`` drives): it
answers the wire protocol, and its timings come back on the client's clock."""

from __future__ import annotations

import time

import httpx

from regintel.bench.llm_stub import StubProcess


def test_the_stub_process_answers_and_stamps_calls_on_our_clock() -> None:
    with StubProcess(first_token_delay_s=0.05) as stub:
        before = time.perf_counter()
        with httpx.stream("POST", f"{stub.base_url}/chat/completions", json={
                "model": "stub-small", "stream": True,
                "messages": [{"role": "user", "content": "Question: what is CDD?\n\n"
                              "Evidence:\n[1] AML Rulebook\nCDD must be applied."}]}) as response:
            events = [line for line in response.iter_lines() if line.startswith("data: ")]
        after = time.perf_counter()
        assert events[-1] == "data: [DONE]"
        (call,) = stub.take_timings()
        assert before < call.arrived < call.first_token < call.finished < after
        assert call.first_token - call.arrived >= 0.05 and call.main
        assert stub.take_timings() == []  # taken once
