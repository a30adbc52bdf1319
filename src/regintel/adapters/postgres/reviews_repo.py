"""ReviewStore on Postgres: tenant-bound sessions (RLS) that also filter by tenant. The table
is append-only (migration 0017 revokes UPDATE and DELETE): the latest row is in force."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from sqlalchemy import insert, select
from sqlalchemy.dialects.postgresql import distinct_on

from regintel.adapters.postgres import tables as t
from regintel.adapters.postgres.database import Database
from regintel.domain.review import DecisionRecord, ReviewDecision
from regintel.ports.reviews import RowRef

_R = t.review_decisions
_DECISION = tuple(_R.c[name] for name in ReviewDecision.model_fields)


class PostgresReviewStore:
    def __init__(self, database: Database) -> None:
        self._db = database

    async def record(self, tenant_id: UUID, entry: DecisionRecord) -> ReviewDecision:
        async with self._db.tenant_session(tenant_id) as s:
            row = (await s.execute(insert(_R).values(tenant_id=tenant_id, **entry.model_dump())
                                   .returning(*_DECISION))).mappings().one()
        return ReviewDecision.model_validate(dict(row))

    async def latest(self, tenant_id: UUID, policy_key: str,
                     regulation_keys: Sequence[str]) -> dict[RowRef, ReviewDecision]:
        if not regulation_keys:
            return {}
        # One row per (regulation, obligation): the first in decided_at order, newest first
        # (the id breaks a tie so the answer never flips between two reads).
        query = (select(*_DECISION).where(
            _R.c.tenant_id == tenant_id, _R.c.policy_key == policy_key,
            _R.c.regulation_key.in_(list(regulation_keys)))
            .ext(distinct_on(_R.c.regulation_key, _R.c.obligation_key))
            .order_by(_R.c.regulation_key, _R.c.obligation_key, _R.c.decided_at.desc(),
                      _R.c.id.desc()))
        async with self._db.tenant_session(tenant_id) as s:
            rows = (await s.execute(query)).mappings().all()
        found = [ReviewDecision.model_validate(dict(r)) for r in rows]
        return {(d.regulation_key, d.obligation_key): d for d in found}

    async def on_regulation(self, tenant_id: UUID,
                            regulation_key: str) -> list[ReviewDecision]:
        query = (select(*_DECISION).where(_R.c.tenant_id == tenant_id,
                                          _R.c.regulation_key == regulation_key)
                 .ext(distinct_on(_R.c.policy_key, _R.c.obligation_key))
                 .order_by(_R.c.policy_key, _R.c.obligation_key, _R.c.decided_at.desc(),
                           _R.c.id.desc()))
        async with self._db.tenant_session(tenant_id) as s:
            rows = (await s.execute(query)).mappings().all()
        return [ReviewDecision.model_validate(dict(r)) for r in rows]

    async def history(self, tenant_id: UUID, policy_key: str, regulation_key: str,
                      obligation_key: str) -> list[ReviewDecision]:
        async with self._db.tenant_session(tenant_id) as s:
            rows = (await s.execute(select(*_DECISION).where(
                _R.c.tenant_id == tenant_id, _R.c.policy_key == policy_key,
                _R.c.regulation_key == regulation_key, _R.c.obligation_key == obligation_key)
                .order_by(_R.c.decided_at, _R.c.id))).mappings().all()
        return [ReviewDecision.model_validate(dict(r)) for r in rows]
