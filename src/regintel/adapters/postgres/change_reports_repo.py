"""Change reports of two versions in Postgres (table ``change_reports``, migration 0018): the
report's JSON keyed by the tenant and the two documents, replaced when made again."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from sqlalchemy import func, select
from sqlalchemy.dialects.postgresql import insert

from regintel.adapters.postgres import tables as t
from regintel.adapters.postgres.database import Database
from regintel.domain.documents import StoredChangeReport

_reports = t.change_reports


class PostgresChangeReportStore:
    def __init__(self, database: Database) -> None:
        self._db = database

    async def get(self, tenant_id: UUID, old_id: UUID,
                  new_id: UUID) -> StoredChangeReport | None:
        async with self._db.tenant_session(tenant_id) as s:
            row = (await s.execute(select(_reports).where(
                _reports.c.tenant_id == tenant_id, _reports.c.old_document_id == old_id,
                _reports.c.new_document_id == new_id))).mappings().first()
        return StoredChangeReport.model_validate(dict(row)) if row else None

    async def put(self, tenant_id: UUID, old_id: UUID, new_id: UUID, *, report_version: int,
                  report: dict[str, Any]) -> None:
        statement = insert(_reports).values(
            tenant_id=tenant_id, old_document_id=old_id, new_document_id=new_id,
            report_version=report_version, report=report)
        async with self._db.tenant_session(tenant_id) as s:
            await s.execute(statement.on_conflict_do_update(
                constraint="change_reports_pkey",
                set_={"report_version": report_version, "report": report,
                      "created_at": func.now()}))
