"""The queue's crash-safety settings: read from the environment, and refused when a live worker
could be taken for dead between two of its heartbeats."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from regintel.settings import QueueSettings, Settings


def test_queue_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REGINTEL_QUEUE__HEARTBEAT_S", "0.5")
    monkeypatch.setenv("REGINTEL_QUEUE__STALLED_AFTER_S", "3")
    monkeypatch.setenv("REGINTEL_QUEUE__RECOVER_EVERY_S", "1")
    queue = Settings().queue
    assert (queue.heartbeat_s, queue.stalled_after_s, queue.recover_every_s) == (0.5, 3.0, 1.0)


def test_defaults_retry_a_dead_workers_job_within_minutes() -> None:
    queue = QueueSettings()
    assert queue.stalled_after_s + queue.recover_every_s <= 120


def test_a_stall_shorter_than_two_heartbeats_is_refused() -> None:
    with pytest.raises(ValidationError, match="at least twice"):
        QueueSettings(heartbeat_s=10, stalled_after_s=15)
