"""Per-user token buckets for chat turns and uploads, kept in Postgres (issue 34): every API
replica spends from the same bucket, so running two replicas does not double a user's quota.
The point stays the same: a runaway client cannot starve the others."""

from __future__ import annotations

from typing import Literal
from uuid import UUID

from regintel.adapters.postgres.database import Database
from regintel.adapters.postgres.throttle_repo import PostgresThrottles
from regintel.api.errors import RateLimited
from regintel.settings import ApiSettings

Bucket = Literal["chat", "upload"]


class RateLimiter:
    """The rules (rate, burst) per kind of request; the state lives in the database."""

    def __init__(self, settings: ApiSettings) -> None:
        self._rules: dict[Bucket, tuple[float, float]] = {
            "chat": (settings.chat_per_minute / 60.0, float(settings.chat_burst)),
            "upload": (settings.upload_per_minute / 60.0, float(settings.upload_burst)),
        }

    async def take(self, database: Database, bucket: Bucket, user_id: UUID) -> None:
        """Spend one token or raise ``RateLimited`` saying when one will be there."""
        rate, burst = self._rules[bucket]
        wait = await PostgresThrottles(database).take(bucket, str(user_id), per_s=rate,
                                                      burst=burst)
        if wait > 0:
            raise RateLimited(f"too many {bucket} requests", retry_after_s=wait,
                              hint=f"wait {max(1, round(wait))} s and try again")
