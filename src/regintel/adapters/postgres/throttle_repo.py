"""Throttles in Postgres (migration 0009), so every API replica counts against the same limits.

Each decision is one ``INSERT ... ON CONFLICT DO UPDATE`` statement: the row lock it takes makes
concurrent requests on different replicas queue for the row, so the last token or the last
allowed attempt cannot be handed out twice. The tables hold no tenant data and no e-mail: the
callers pass opaque subjects (keyed hashes), see ``api.accounts.throttle``."""

from __future__ import annotations

import random
from dataclasses import dataclass

from sqlalchemy import (
    Column,
    DateTime,
    Float,
    Index,
    Integer,
    PrimaryKeyConstraint,
    Table,
    Text,
    func,
    text,
)

from regintel.adapters.postgres.database import Database
from regintel.adapters.postgres.tables import metadata

auth_throttles = Table(
    "auth_throttles", metadata,
    Column("scope", Text, nullable=False),
    Column("subject", Text, nullable=False),
    Column("failures", Integer, nullable=False, server_default="0"),
    Column("window_start", DateTime(timezone=True), nullable=False, server_default=func.now()),
    Column("strikes", Integer, nullable=False, server_default="0"),
    Column("blocked_until", DateTime(timezone=True)),
    Column("updated_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    PrimaryKeyConstraint("scope", "subject", name="auth_throttles_pkey"),
    Index("auth_throttles_updated_idx", "updated_at"),
)

rate_buckets = Table(
    "rate_buckets", metadata,
    Column("bucket", Text, nullable=False),
    Column("subject", Text, nullable=False),
    Column("tokens", Float, nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    PrimaryKeyConstraint("bucket", "subject", name="rate_buckets_pkey"),
    Index("rate_buckets_updated_idx", "updated_at"),
)


@dataclass(frozen=True)
class AttemptRule:
    """``limit`` attempts per ``window_s``; the next one blocks the subject for ``backoff_s``,
    doubled on each repeated block up to ``backoff_max_s``. Strikes are forgotten after twice
    the cap of quiet (or when the caller clears the subject, e.g. on a good login)."""

    limit: int
    window_s: float
    backoff_s: float
    backoff_max_s: float


# Expressions over the stored row ``a``; only constants are formatted in, values are bound.
_SECS = "make_interval(secs => CAST(:{} AS double precision))"
_FRESH = f"(a.window_start <= clock_timestamp() - {_SECS.format('window')} " \
    "OR a.blocked_until IS NOT NULL)"
_COUNT = f"(CASE WHEN {_FRESH} THEN 1 ELSE a.failures + 1 END)"
_STRIKES = f"(CASE WHEN a.updated_at <= clock_timestamp() - {_SECS.format('forgive')} " \
    "THEN 0 ELSE a.strikes END)"
_BACKOFF = ("make_interval(secs => least(CAST(:cap AS double precision), "
            f"CAST(:backoff AS double precision) * power(2, {_STRIKES})))")

# An attempt is counted before the caller does any expensive work (Argon2), so even parallel
# attempts cannot pass the limit. A blocked subject's row is left alone (the WHERE clause): then
# no row comes back, and the caller reads how long the block still lasts.
_ATTEMPT = text(f"""
INSERT INTO auth_throttles AS a (scope, subject, failures, window_start, strikes, updated_at)
VALUES (:scope, :subject, 1, clock_timestamp(), 0, clock_timestamp())
ON CONFLICT (scope, subject) DO UPDATE SET
  failures = {_COUNT},
  window_start = CASE WHEN {_FRESH} THEN clock_timestamp() ELSE a.window_start END,
  strikes = {_STRIKES} + CASE WHEN {_COUNT} > :limit THEN 1 ELSE 0 END,
  blocked_until = CASE WHEN {_COUNT} > :limit THEN clock_timestamp() + {_BACKOFF} END,
  updated_at = clock_timestamp()
WHERE a.blocked_until IS NULL OR a.blocked_until <= clock_timestamp()
RETURNING GREATEST(0, EXTRACT(EPOCH FROM a.blocked_until - clock_timestamp()))::float8
""")
_BLOCKED_FOR = text("""
SELECT GREATEST(0, EXTRACT(EPOCH FROM blocked_until - clock_timestamp()))::float8
FROM auth_throttles WHERE scope = :scope AND subject = :subject""")
_RELEASE = text("""
UPDATE auth_throttles SET failures = GREATEST(failures - 1, 0), updated_at = clock_timestamp()
WHERE scope = :scope AND subject = :subject AND blocked_until IS NULL""")
_CLEAR = text("DELETE FROM auth_throttles WHERE scope = :scope AND subject = :subject")

# Refill by elapsed time, capped at the burst, then spend one token, only if one is there: a
# refused request leaves the row as it was (refill is a function of the time since the last
# spend), so no row back means refused.
_REFILLED = ("least(CAST(:burst AS double precision), b.tokens + "
             "EXTRACT(EPOCH FROM clock_timestamp() - b.updated_at)::float8 "
             "* CAST(:rate AS double precision))")
_TAKE = text(f"""
INSERT INTO rate_buckets AS b (bucket, subject, tokens, updated_at)
VALUES (:bucket, :subject, CAST(:burst AS double precision) - 1, clock_timestamp())
ON CONFLICT (bucket, subject) DO UPDATE SET
  tokens = {_REFILLED} - 1, updated_at = clock_timestamp()
WHERE {_REFILLED} >= 1
RETURNING tokens""")
_TOKENS_NOW = text(f"""
SELECT {_REFILLED} FROM rate_buckets AS b WHERE bucket = :bucket AND subject = :subject""")

_PRUNE_THROTTLES = text("""
DELETE FROM auth_throttles WHERE updated_at < clock_timestamp() - make_interval(secs => :horizon)
  AND (blocked_until IS NULL OR blocked_until < clock_timestamp())""")
_PRUNE_BUCKETS = text("""
DELETE FROM rate_buckets WHERE updated_at < clock_timestamp() - make_interval(secs => :horizon)""")

# One write in this many also prunes: cheap (indexed on updated_at), and no timer to run.
PRUNE_ONE_IN = 100


class PostgresThrottles:
    def __init__(self, database: Database, *, prune_one_in: int = PRUNE_ONE_IN) -> None:
        self._db = database
        self._prune_one_in = prune_one_in

    # -- attempt counters (sign-in, sign-up) ------------------------------------------------
    async def attempt(self, scope: str, subject: str, rule: AttemptRule) -> float:
        """Count one attempt; 0 if it may go ahead, else the seconds until the block ends."""
        params = {"scope": scope, "subject": subject, "limit": rule.limit,
                  "window": rule.window_s, "backoff": rule.backoff_s,
                  "cap": rule.backoff_max_s, "forgive": 2 * rule.backoff_max_s}
        async with self._db.system_session() as s:
            wait = (await s.execute(_ATTEMPT, params)).scalar_one_or_none()
            if wait is None:  # already blocked: nothing was counted
                wait = (await s.execute(_BLOCKED_FOR, params)).scalar_one_or_none()
        await self._maybe_prune(_throttle_horizon(rule))
        return float(wait or 0.0)

    async def release(self, scope: str, subject: str) -> None:
        """Take back one counted attempt (it turned out good), unless the subject is blocked."""
        async with self._db.system_session() as s:
            await s.execute(_RELEASE, {"scope": scope, "subject": subject})

    async def clear(self, scope: str, subject: str) -> None:
        """Forget the subject: its count, block and strikes."""
        async with self._db.system_session() as s:
            await s.execute(_CLEAR, {"scope": scope, "subject": subject})

    # -- token buckets (chat, uploads) ------------------------------------------------------
    async def take(self, bucket: str, subject: str, *, per_s: float, burst: float) -> float:
        """Spend one token: 0 if there was one, else the seconds until there will be."""
        params = {"bucket": bucket, "subject": subject, "rate": per_s, "burst": burst}
        async with self._db.system_session() as s:
            spent = (await s.execute(_TAKE, params)).scalar_one_or_none()
            tokens = None if spent is not None else \
                (await s.execute(_TOKENS_NOW, params)).scalar_one_or_none()
        # A full bucket is as good as no row: idle past burst/rate seconds it can go.
        await self._maybe_prune(None, bucket_horizon_s=burst / per_s)
        if spent is not None:
            return 0.0
        return max(0.0, (1.0 - float(tokens or 0.0)) / per_s)

    # -- housekeeping -----------------------------------------------------------------------
    async def prune(self, *, throttle_horizon_s: float | None,
                    bucket_horizon_s: float | None = None) -> None:
        """Delete rows idle longer than the horizons (blocked subjects stay until unblocked)."""
        async with self._db.system_session() as s:
            if throttle_horizon_s is not None:
                await s.execute(_PRUNE_THROTTLES, {"horizon": float(throttle_horizon_s)})
            if bucket_horizon_s is not None:
                await s.execute(_PRUNE_BUCKETS, {"horizon": float(bucket_horizon_s)})

    async def _maybe_prune(self, throttle_horizon_s: float | None, *,
                           bucket_horizon_s: float | None = None) -> None:
        if random.randrange(self._prune_one_in) == 0:  # noqa: S311 - scheduling, not security
            await self.prune(throttle_horizon_s=throttle_horizon_s,
                             bucket_horizon_s=bucket_horizon_s)


def _throttle_horizon(rule: AttemptRule) -> float:
    # Past this, a row holds neither a live window nor strikes worth remembering.
    return max(rule.window_s, 2 * rule.backoff_max_s)
