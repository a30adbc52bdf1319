"""``regintel audit export``: a thread's latest audit as a report file (XLSX, CSV or DOCX)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated
from uuid import UUID

import typer

from regintel.cli.app import TenantOption, app, load_settings, open_container, run
from regintel.reports.export import Exported, ExportFormat, export

audit_app = typer.Typer(no_args_is_help=True, help="Audit reports.")
app.add_typer(audit_app, name="audit")


@audit_app.command("export")
def export_cmd(
    thread: Annotated[UUID, typer.Argument(help="The conversation (thread) that ran the audit.")],
    fmt: Annotated[ExportFormat, typer.Option("--format", help="xlsx, csv or docx.")],
    out: Annotated[Path | None, typer.Option(
        "--out", dir_okay=False, help="File to write (default: a name from the thread's "
        "title and the audit's date, in the current directory).")] = None,
    tenant: TenantOption = "default",
) -> None:
    """Write the thread's latest audit: a summary, the findings by severity and the matrix in
    review order with the officer's decisions and a sign-off block (CSV: the matrix only)."""
    from regintel.reports.audit_thread import thread_audit_report

    settings = load_settings()

    async def go() -> Exported:
        async with open_container(settings) as container:
            tenant_id = await container.documents.ensure_tenant(tenant)
            review = container.review
            report = await thread_audit_report(
                container.conversations, tenant_id, thread,
                reviews_for=lambda matrix, _: review.standing(tenant_id, matrix))
            return export(report, fmt)

    exported = run(go)
    path = out or Path(exported.filename)
    path.write_bytes(exported.data)
    typer.echo(f"wrote {path} ({len(exported.data):,} bytes)")
