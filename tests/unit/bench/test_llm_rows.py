"""``regintel bench llm --rows``: rows appended as questions are answered, a rerun skips them,
and the figures come from every row in the file (no model needed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from regintel.adapters.llm.machine_speed import Speed
from regintel.bench.llm_local import append_row, done_ids, figures, read_rows


def _row(qid: str, *, first_s: float, fallbacks: list[str], gold: int) -> dict[str, Any]:
    return {"question_id": qid, "model": "m", "offline": {"cited": 2, "gold": 1},
            "llm": {"cited": 2, "gold": gold}, "offline_s": 0.5, "llm_s": first_s + 2.0,
            "fallbacks": fallbacks,
            "calls": [{"prompt": "p", "first_s": first_s, "tokens": 11,
                       "total_s": first_s + 2.0, "prompt_tokens": 1000}]}


def test_rows_resume_and_aggregate(tmp_path: Path) -> None:
    rows_file = tmp_path / "rows.jsonl"
    assert done_ids(rows_file) == set()
    append_row(rows_file, _row("q1", first_s=10.0, fallbacks=[], gold=1))
    # A stop mid-write leaves a cut line; it is skipped, and q1 answered again counts once.
    with rows_file.open("a", encoding="utf-8") as out:
        out.write('{"question_id": "q2", "mod')
        out.write("\n")
    append_row(rows_file, _row("q1", first_s=99.0, fallbacks=[], gold=0))
    append_row(rows_file, _row("q3", first_s=20.0,
                               fallbacks=["compose_inquiry: no supported statement"], gold=0))
    assert done_ids(rows_file) == {"q1", "q3"}
    rows = read_rows(rows_file)
    assert [r["question_id"] for r in rows] == ["q1", "q3"]

    f = figures(rows, model="m", context_tokens=4096, passages=7)
    assert f["questions"] == 2
    assert f["prefill_tokens_per_s"] == 75.0  # median of 1000/10 and 1000/20
    assert f["generation_tokens_per_s"] == 5.0  # 10 tokens after the first in 2 s
    assert f["prompt_tokens_p50"] == 1000
    assert f["fallback_share"] == {"compose_inquiry": 0.5}
    assert f["fallback_reasons"] == {"compose_inquiry: no supported statement": 1}
    assert f["gold"]["llm"]["answers_citing_gold"] == 0.5
    assert f["gold"]["llm_model_written"] == {"answers": 1, "answers_citing_gold": 1.0,
                                              "gold_share": 0.5}
    assert f["gold"]["offline"]["gold_share"] == 0.5


def test_example_leaks_and_the_machines_estimate_are_reported() -> None:
    rows = [{**_row("q1", first_s=10.0, fallbacks=[], gold=1), "answer": "a",
             "example_phrases": ["21 days of the"]},
            {**_row("q2", first_s=12.0, fallbacks=[], gold=1), "answer": "b",
             "example_phrases": []},
            _row("q3", first_s=11.0, fallbacks=[], gold=1)]  # written before the check
    speed = Speed(model="m", prefill_tokens_per_s=126.0, generation_tokens_per_s=15.0,
                  measured_at="2026-12-07T00:00:00+00:00")
    f = figures(rows, model="m", context_tokens=4096, passages=7, speed=speed)
    assert (f["example_leaks"], f["example_leaks_checked"]) == (1, 2)
    assert f["first_token_estimate_s"] == 10.0  # 1,260 typical prompt tokens at 126/s
    assert f["machine_speed"]["generation_tokens_per_s"] == 15.0
