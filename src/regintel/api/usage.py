"""Token and cost totals from ``usage_events`` (written by the chat's respond node)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from sqlalchemy import func, select

from regintel.adapters.postgres import tables as t
from regintel.adapters.postgres.database import Database
from regintel.api.schemas.conversations import ConversationUsage, TenantUsagePublic, UsageTotals

_u = t.usage_events
_TOTALS = (func.count().label("turns"),
           func.coalesce(func.sum(_u.c.input_tokens), 0).label("input_tokens"),
           func.coalesce(func.sum(_u.c.output_tokens), 0).label("output_tokens"),
           func.coalesce(func.sum(_u.c.cost_usd), 0).label("cost_usd"))


def _totals(row: Any) -> dict[str, Any]:
    return {"turns": int(row["turns"]), "input_tokens": int(row["input_tokens"]),
            "output_tokens": int(row["output_tokens"]), "cost_usd": float(row["cost_usd"])}


async def tenant_usage(database: Database, tenant_id: UUID, *,
                       user_id: UUID | None) -> TenantUsagePublic:
    """The tenant's totals, and per conversation those of ``user_id``'s turns only (every
    conversation's when None): conversations are personal, so a member must not learn the
    ids of the others'. Required, so that no caller forgets to decide."""
    conditions = [_u.c.tenant_id == tenant_id, _u.c.conversation_id.is_not(None)]
    if user_id is not None:
        conditions.append(_u.c.user_id == user_id)
    async with database.tenant_session(tenant_id) as s:
        total = (await s.execute(select(*_TOTALS).where(_u.c.tenant_id == tenant_id))
                 ).mappings().one()
        rows = (await s.execute(select(_u.c.conversation_id, *_TOTALS).where(*conditions)
            .group_by(_u.c.conversation_id).order_by(func.max(_u.c.created_at).desc())
            .limit(500))).mappings().all()
    return TenantUsagePublic(
        total=UsageTotals(**_totals(total)),
        by_conversation=[ConversationUsage(conversation_id=r["conversation_id"], **_totals(r))
                         for r in rows])


async def conversation_usage(database: Database, tenant_id: UUID,
                             conversation_id: UUID) -> UsageTotals:
    async with database.tenant_session(tenant_id) as s:
        row = (await s.execute(select(*_TOTALS).where(
            _u.c.tenant_id == tenant_id, _u.c.conversation_id == conversation_id))
               ).mappings().one()
    return UsageTotals(**_totals(row))
