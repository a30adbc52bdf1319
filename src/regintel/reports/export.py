"""One entry for every export format: the bytes, the media type and a file name."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import assert_never

from regintel.reports.audit_report import AuditReport


class ExportFormat(StrEnum):
    XLSX = "xlsx"
    CSV = "csv"
    DOCX = "docx"


MEDIA_TYPES = {
    ExportFormat.XLSX: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ExportFormat.CSV: "text/csv; charset=utf-8",
    ExportFormat.DOCX: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
}


@dataclass(frozen=True)
class Exported:
    data: bytes
    media_type: str
    filename: str


def export(report: AuditReport, fmt: ExportFormat) -> Exported:
    match fmt:
        case ExportFormat.XLSX:
            from regintel.reports.xlsx_export import to_xlsx

            data = to_xlsx(report)
        case ExportFormat.CSV:
            from regintel.reports.csv_export import to_csv

            data = to_csv(report)
        case ExportFormat.DOCX:
            from regintel.reports.docx_export import to_docx

            data = to_docx(report)
        case _:
            assert_never(fmt)
    return Exported(data, MEDIA_TYPES[fmt], f"{file_stem(report)}.{fmt.value}")


def file_stem(report: AuditReport) -> str:
    """A safe file name: the conversation's title (or 'audit') and the audit's date."""
    name = re.sub(r"[^A-Za-z0-9]+", "-", report.conversation_title or "audit").strip("-")
    return f"{(name or 'audit')[:60]}-{report.created_at:%Y%m%d-%H%M}"
