"""Per-user token buckets, in process. Each API replica limits on its own, which bounds one
user's load on one process (the point: a runaway client cannot starve the others)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal
from uuid import UUID

from regintel.api.errors import RateLimited
from regintel.settings import ApiSettings

Bucket = Literal["chat", "upload"]
_MAX_KEYS = 50_000  # past this, full (idle) buckets are forgotten


@dataclass
class _State:
    tokens: float
    stamp: float


class RateLimiter:
    def __init__(self, settings: ApiSettings, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._rules: dict[Bucket, tuple[float, float]] = {
            "chat": (settings.chat_per_minute / 60.0, float(settings.chat_burst)),
            "upload": (settings.upload_per_minute / 60.0, float(settings.upload_burst)),
        }
        self._clock = clock
        self._state: dict[tuple[Bucket, UUID], _State] = {}

    def take(self, bucket: Bucket, user_id: UUID) -> None:
        """Spend one token or raise ``RateLimited`` saying when one will be there."""
        rate, burst = self._rules[bucket]
        now = self._clock()
        key = (bucket, user_id)
        state = self._state.get(key)
        if state is None:
            if len(self._state) >= _MAX_KEYS:
                self._prune(now)
            state = self._state[key] = _State(burst, now)
        state.tokens = min(burst, state.tokens + (now - state.stamp) * rate)
        state.stamp = now
        if state.tokens < 1.0:
            wait = (1.0 - state.tokens) / rate
            raise RateLimited(f"too many {bucket} requests", retry_after_s=wait,
                              hint=f"wait {wait:.0f} s and try again")
        state.tokens -= 1.0

    def _prune(self, now: float) -> None:
        for key, state in list(self._state.items()):
            rate, burst = self._rules[key[0]]
            if state.tokens + (now - state.stamp) * rate >= burst:
                del self._state[key]
