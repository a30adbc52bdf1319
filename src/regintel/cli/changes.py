"""``regintel changes OLD NEW``: what changed between two versions of a regulation, typed;
and ``regintel bench changes``: that report against a machine record of amendments.

The report is pure computation on two texts: text files, or two documents of the library
(their stored text, by id). Of two library documents, the report prepared when the later
version was ingested is read from the store (made and stored now when it is missing)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated, Any
from uuid import UUID

import typer

from regintel.bench.report import render_json, render_table
from regintel.changes.impacting import ImpactReport
from regintel.changes.models import CHANGE_KINDS, ChangeReport
from regintel.cli.app import (
    JsonOption,
    TenantOption,
    app,
    bench_app,
    fail,
    load_settings,
    open_container,
    run,
)
from regintel.errors import InvalidRequest

SUMMARY_WIDTH = 110

Version = Annotated[str, typer.Argument(
    help="A version: a plain-text file (UTF-8, one paragraph a line, as the versions in "
         "../shared/data/versions are), or the id of a ready document of the library.")]


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        fail(InvalidRequest(f"{path} is not UTF-8 plain text",
                            hint="export the version as text; PDF and DOCX versions come with "
                                 "document versions in the library"))


def _versions(old: str, new: str, tenant: str) -> tuple[tuple[str, str], tuple[str, str]]:
    """Each version's text and name: a file's, or a library document's stored text."""
    ids: dict[str, UUID] = {}
    for given in (old, new):
        if not Path(given).is_file():
            try:
                ids[given] = UUID(given)
            except ValueError:
                fail(InvalidRequest(f"{given} is neither a file nor a document id",
                                    hint="give a text file, or a document id from "
                                         "`regintel documents list`"))
    wanted = list(ids.values())
    stored = run(lambda: _stored(wanted, tenant)) if wanted else {}

    def text(given: str) -> tuple[str, str]:
        if given in ids:
            return stored[ids[given]]
        return _read(Path(given)), Path(given).name

    return text(old), text(new)


def _library_pair(old: str, new: str) -> tuple[UUID, UUID] | None:
    """Both versions as document ids, when neither names a file."""
    try:
        return (UUID(old), UUID(new)) if not (Path(old).is_file() or Path(new).is_file()) \
            else None
    except ValueError:
        return None


async def _stored_report(old: UUID, new: UUID, tenant: str) -> ChangeReport:
    async with open_container(load_settings()) as container:
        tenant_id = await container.documents.ensure_tenant(tenant)
        return await container.version_changes.report(tenant_id, old, new)


async def _stored(ids: list[UUID], tenant: str) -> dict[UUID, tuple[str, str]]:
    from regintel.domain.documents import DocStatus, titled
    from regintel.obligations.review_state import policy_text

    async with open_container(load_settings()) as container:
        tenant_id = await container.documents.ensure_tenant(tenant)
        out: dict[UUID, tuple[str, str]] = {}
        for document_id in ids:
            document = await container.documents.get(tenant_id, document_id)
            if document.status is not DocStatus.READY:
                raise InvalidRequest(f"\"{document.title}\" is not ready yet",
                                     hint="wait until it is ingested")
            chunks = await container.chunk_index.document_chunks(tenant_id, document_id)
            out[document_id] = (policy_text(chunks), titled(document.title, document.version))
        return out


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _show(report: ChangeReport) -> str:
    c = report.counts
    head = (f"Changes from {report.old_name} to {report.new_name}: {c['total']} "
            f"({c['substantive']} substantive, {c['editorial']} editorial) in "
            f"{report.seconds} s")
    toc = render_table("By table of contents", ["division / section", "changes",
                                                "substantive", "editorial"],
                       [["  " * e.depth + e.label + (f" {_cut(e.heading, 50)}" if e.heading
                                                     else ""),
                         e.changes, e.substantive, e.editorial] for e in report.toc])
    lines = ["Changes (S substantive, E editorial; --json for quotes, redlines and facts)"]
    for n, ch in enumerate(report.changes, 1):
        flag = "S" if ch.substantive else f"E ({ch.editorial})"
        moved = (ch.old_provision or "—") if ch.old_provision == ch.new_provision else \
            f"{ch.old_provision or '—'} → {ch.new_provision or '—'}"
        lines += [f"{n:>4}. {ch.kind:<10} {flag:<20} {moved}",
                  f"      {_cut(ch.summary, SUMMARY_WIDTH)}"]
    changes = "\n".join(lines)
    return f"{head}\n\n{toc}\n\n{changes}"


@app.command("changes")
def changes_cmd(
    old: Version,
    new: Version,
    json_out: JsonOption = False,
    substantive: Annotated[bool | None, typer.Option(
        "--substantive/--editorial", help="Only substantive, or only editorial, changes.",
        show_default=False)] = None,
    kind: Annotated[list[str] | None, typer.Option(
        help=f"Only changes of this kind ({', '.join(CHANGE_KINDS)}); repeatable.")] = None,
    tenant: TenantOption = "default",
    impact: Annotated[bool, typer.Option(
        "--impact", help="What the change touches instead (library ids only): obligations "
        "added, removed, altered; review decisions that reopen; project items.")] = False,
    export: Annotated[Path | None, typer.Option(
        help="With --impact: write the impact report to FILE (.xlsx or .docx).")] = None,
) -> None:
    """What changed from OLD to NEW, provision by provision: each change's kind (inserted,
    deleted, amended, renumbered, moved, split, merged), substantive or editorial, a
    word-level redline, the typed facts it changed and one sentence, with counts by table of
    contents. OLD and NEW are text files or ids of ready library documents."""
    from regintel.changes.report import compare_texts

    unknown = sorted(set(kind or ()) - set(CHANGE_KINDS))
    if unknown:
        raise typer.BadParameter(f"unknown kind {', '.join(unknown)}", param_hint="--kind")
    pair = _library_pair(old, new)
    if impact or export is not None:
        if pair is None:
            fail(InvalidRequest("the impact is read from the library",
                                hint="give OLD and NEW as ids of library documents"))
        _impact(*pair, tenant, json_out, export)
        return
    if pair is not None:
        report = run(lambda: _stored_report(*pair, tenant))
    else:
        (old_text, old_name), (new_text, new_name) = _versions(old, new, tenant)
        report = compare_texts(old_text, new_text, old_name, new_name)
    total = len(report.changes)
    if substantive is not None or kind:
        report.changes = [c for c in report.changes
                          if (substantive is None or c.substantive == substantive)
                          and (not kind or c.kind in kind)]
    if json_out:
        typer.echo(report.model_dump_json(indent=2))
        return
    typer.echo(_show(report))
    if len(report.changes) < total:
        typer.echo(f"(listed {len(report.changes)} of {total}, filtered; the counts above are "
                   "the whole report's)")


async def _impact_report(old: UUID, new: UUID, tenant: str) -> ImpactReport:
    async with open_container(load_settings()) as container:
        tenant_id = await container.documents.ensure_tenant(tenant)
        return await container.impact.report(tenant_id, old, new)


def _impact(old: UUID, new: UUID, tenant: str, json_out: bool, export: Path | None) -> None:
    from regintel.changes import impact_export

    if export is not None and export.suffix.lower() not in (".xlsx", ".docx"):
        fail(InvalidRequest(f"{export.name}: the impact report is written as .xlsx or .docx"))
    report = run(lambda: _impact_report(old, new, tenant))
    if export is not None:
        data = (impact_export.to_xlsx(report) if export.suffix.lower() == ".xlsx"
                else impact_export.to_docx(report))
        export.write_bytes(data)
        typer.echo(f"wrote {export} ({len(data)} bytes)")
        return
    if json_out:
        typer.echo(report.model_dump_json(indent=2))
        return
    summary = impact_export.tabular_report(report)
    typer.echo(summary.title)
    for label, value in summary.summary[2:5]:
        typer.echo(f"  {label}: {value}")
    for table in summary.tables:
        typer.echo(render_table(f"{table.name} ({len(table.rows)})", list(table.columns),
                                [[_cut(str(v), 60) for v in row] for row in table.rows]))


async def _library_figures(directory: Path, parts: list[str] | None) -> dict[str, Any]:
    from regintel.bench import changes

    settings = load_settings()
    # The answers' sentence vectors are no part of a change report: not prepared here.
    upload = settings.upload.model_copy(update={"prepare_answers": False})
    with tempfile.TemporaryDirectory(prefix="regintel-bench-changes-") as scratch:
        async with open_container(settings.model_copy(update={
                "data_dir": Path(scratch), "upload": upload})) as container:
            figures = await changes.run_library(container, directory, parts)
    return figures


@bench_app.command("changes")
def bench_changes(
    directory: Annotated[Path, typer.Option(
        "--dir", exists=True, file_okay=False,
        help="Versions with their change records: <part>/<version>.txt and "
             "<part>/changes_<from>__<to>.json, e.g. ../shared/data/versions/atf.")],
    part: Annotated[list[str] | None, typer.Option(
        help="Only this part (a subdirectory); repeatable. Default: all.")] = None,
    library: Annotated[bool, typer.Option(
        "--library/--files", help="Ingest each part's versions into a scratch library as one "
        "document's versions and score the reports it serves (minutes), or read the text "
        "files directly (seconds).")] = True,
    json_out: JsonOption = False,
) -> None:
    """Change reports scored against a record of amendments, per part and pooled.

    Section recall and precision, paragraph recall, the editorial share of whitespace or
    punctuation changes and the time per pair (with --library: the report as the library
    serves it once the versions are ingested)."""
    from regintel.bench import changes

    if library:
        figures = run(lambda: _library_figures(directory, part))
    else:
        figures = changes.run(directory, part)
    if not figures["pairs"]:
        fail(InvalidRequest(f"no changes_*.json records under {directory}"))
    if json_out:
        typer.echo(render_json(figures))
        return
    how = "each part ingested as one document's versions" if library else \
        "text files read directly, not ingested"
    typer.echo(render_table(
        f"Change report against the record ({figures['pooled']['pairs']} pairs; {how})",
        changes.TABLE_HEADERS, changes.table_rows(figures)))
    typer.echo("record changes: eRegs' paragraph labels, those numbered by position (p<n>) "
               "under one paragraph counted as one; editorial share: of the record's changes "
               "that are whitespace or punctuation only ('of'), the share called editorial")
    for pair in figures["pairs"]:
        if pair["missed"]:
            typer.echo(f"  not found, {pair['part']} {pair['from']} → {pair['to']}: "
                       f"{', '.join(pair['missed'])}")
