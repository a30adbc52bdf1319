"""The local model's speed on this machine, kept in the data directory, and what the product
says of it: the estimate of a typical turn, the selector's words, the default it leaves."""

from __future__ import annotations

from pathlib import Path

from regintel.adapters.llm.machine_speed import Estimate, Speed, keep, speed_file, stored
from regintel.builders import default_engine
from regintel.domain.chat import EngineChoice
from regintel.settings import LlmSettings

SLOW = Speed(model="m", prefill_tokens_per_s=28.0, generation_tokens_per_s=3.0,
             measured_at="2026-12-07T00:00:00+00:00")
FAST = Speed(model="m", prefill_tokens_per_s=400.0, generation_tokens_per_s=40.0,
             measured_at="2026-12-07T00:00:00+00:00")


def test_a_measurement_is_kept_per_model_and_survives_a_bad_file(tmp_path: Path) -> None:
    assert stored(tmp_path, "m") is None
    keep(tmp_path, SLOW)
    keep(tmp_path, Speed(model="other", prefill_tokens_per_s=1.0, generation_tokens_per_s=1.0,
                         measured_at="x"))
    assert stored(tmp_path, "m") == SLOW and stored(tmp_path, "other") is not None
    speed_file(tmp_path).write_text("{not json", encoding="utf-8")
    assert stored(tmp_path, "m") is None  # unreadable: measured again, never a crash
    keep(tmp_path, FAST)
    assert stored(tmp_path, "m") == FAST


def test_the_estimate_says_a_turns_cost_and_a_slow_machine_keeps_offline_the_default() -> None:
    slow, fast = Estimate.of(SLOW), Estimate.of(FAST)
    assert slow.first_token_s == 45.0 and slow.slow
    assert slow.turn_s == 95.0 and slow.words() == "about 2 min a turn on this machine"
    assert not fast.slow and fast.words() == "about 7 s a turn on this machine"
    local = LlmSettings(provider="local")
    assert default_engine(local) is EngineChoice.LOCAL  # not measured yet: as configured
    assert default_engine(local, fast) is EngineChoice.LOCAL
    assert default_engine(local, slow) is EngineChoice.OFFLINE
