"""Document library commands: ingest, search, documents list/delete, reindex."""

from __future__ import annotations

import asyncio
import json
from datetime import date, datetime
from pathlib import Path
from typing import Annotated, Any
from uuid import UUID

import typer

from regintel.cli.app import (
    JsonOption,
    TenantOption,
    app,
    documents_app,
    fail,
    load_settings,
    open_container,
    run,
)
from regintel.cli.progress import with_progress
from regintel.domain.documents import DocStatus, DocType, Document, SearchScope, titled
from regintel.errors import InvalidRequest, NotFound, RegintelError


def _summary(document: Document) -> dict[str, Any]:
    return {"document_id": str(document.id), "title": document.title,
            "version": document.version, "status": document.status.value,
            "chunks": document.chunk_count, "reason": document.status_reason}


def _effective(value: str | None) -> date | None:
    if value is None:
        return None
    try:
        return datetime.strptime(value, "%Y-%m-%d").date()
    except ValueError:
        raise typer.BadParameter(f"{value!r} is not a date YYYY-MM-DD",
                                 param_hint="--effective") from None


def _standing(document: Document) -> str:
    """Whether a version is the one search reads: current, superseded, or not yet in force."""
    if document.is_current:
        return "current"
    if document.effective_date and document.effective_date > date.today():
        return f"in force from {document.effective_date.isoformat()}"
    if document.status is not DocStatus.READY:
        return "not ready"
    return "superseded"


@app.command("ingest")
def ingest_cmd(
    paths: Annotated[list[Path], typer.Argument(exists=True, dir_okay=False, readable=True)],
    doc_type: Annotated[DocType | None, typer.Option(
        "--type", help="regulation or policy (a new version takes its document's).")] = None,
    title: Annotated[str | None, typer.Option(
        help="Title (default: the file name; for a new version, its document's).")] = None,
    version: Annotated[str, typer.Option(help="Version label, e.g. '2024' or 'v3'.")] = "",
    version_of: Annotated[str | None, typer.Option(
        "--version-of", metavar="DOC",
        help="The file is a new version of DOC (a document id, or its exact title); give "
             "its label with --version. Once ready it is the version search reads, and what "
             "changed since the version before it is prepared.")] = None,
    effective: Annotated[str | None, typer.Option(
        metavar="YYYY-MM-DD", help="When this version takes effect (default: from now); "
        "a version dated in the future is not current until then.")] = None,
    set_name: Annotated[str | None, typer.Option("--set", help="Document set name.")] = None,
    wait: Annotated[bool, typer.Option(help="Wait until each document is ready.")] = True,
    timeout: Annotated[float, typer.Option(help="Seconds to wait.")] = 1800,
    tenant: TenantOption = "default",
    json_out: JsonOption = False,
) -> None:
    """Add documents to the library; prints {"document_id", "status", "chunks"} per file."""
    if title and len(paths) > 1:
        fail(InvalidRequest("--title applies to one file; omit it to use each file's name"))
    if version_of and len(paths) > 1:
        fail(InvalidRequest("--version-of applies to one file: ingest versions one by one"))
    if doc_type is None and not version_of:
        raise typer.BadParameter("regulation or policy", param_hint="--type")
    effective_date = _effective(effective)
    settings = load_settings()

    async def go() -> list[Document]:
        async with open_container(settings) as container:
            tenant_id = await container.documents.ensure_tenant(tenant)
            limit = settings.upload.max_bytes
            submitted = []
            for path in paths:
                size = (await asyncio.to_thread(path.stat)).st_size
                if size > limit:  # refuse before reading it whole
                    raise InvalidRequest(f"{path.name} is larger than the "
                                         f"{limit / 1_048_576:.0f} MB limit")
                data = await asyncio.to_thread(path.read_bytes)
                result = await container.ingestion.submit(
                    tenant_id, data=data, filename=path.name,
                    title=title or ("" if version_of else path.stem), doc_type=doc_type,
                    version=version, set_name=set_name, version_of=version_of,
                    effective_date=effective_date)
                submitted.append(result.document)
            if not wait:
                return submitted
            ids = [d.id for d in submitted]
            work = container.ingestion.run_until_done(tenant_id, ids, timeout_s=timeout)
            if json_out:
                return await work

            async def read() -> list[Document]:
                return [await container.documents.get(tenant_id, i) for i in ids]

            return await with_progress(work, read, len(ids))

    documents = run(go)
    for document in documents:
        if json_out:
            typer.echo(json.dumps(_summary(document)))
        else:
            reason = f" — {document.status_reason}" if document.status_reason else ""
            typer.echo(f"{document.id}  {document.status.value:<10} {document.chunk_count:>5} "
                       f"chunks  {titled(document.title, document.version)}{reason}")
    if any(d.status is DocStatus.FAILED for d in documents):
        raise typer.Exit(2)


@app.command("search")
def search_cmd(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    doc: Annotated[list[UUID] | None, typer.Option("--doc", help="Limit to documents.")] = None,
    set_name: Annotated[str | None, typer.Option("--set", help="Limit to a set.")] = None,
    doc_type: Annotated[DocType | None, typer.Option("--type", help="Limit to a type.")] = None,
    k: Annotated[int, typer.Option(min=1, max=100, help="How many chunks.")] = 10,
    tenant: TenantOption = "default",
    json_out: JsonOption = False,
) -> None:
    """Hybrid search over the library, best first, with calibrated relevance scores."""
    settings = load_settings()

    async def go() -> list[dict[str, Any]]:
        async with open_container(settings) as container:
            tenant_id = await container.documents.ensure_tenant(tenant)
            set_ids: tuple[UUID, ...] = ()
            if set_name:
                found = await container.documents.find_set(tenant_id, set_name)
                if found is None:
                    raise NotFound(f"no document set named {set_name!r}")
                set_ids = (found.id,)
            for document_id in doc or []:
                await container.documents.get(tenant_id, document_id)  # NotFound if foreign
            hits = await container.retriever.search(
                tenant_id, query, k=k,
                scope=SearchScope(document_ids=tuple(doc or ()), set_ids=set_ids,
                                  doc_type=doc_type))
            return [h.model_dump(mode="json") for h in hits]

    hits = run(go)
    if json_out:
        typer.echo(json.dumps(hits, indent=2))
        return
    for rank, hit in enumerate(hits, start=1):
        where = f"p.{hit['page_start']}" + (f" · {hit['clause']}" if hit["clause"] else "")
        typer.echo(f"{rank:>2}. [{hit['score']:.3f}] {hit['document_title']} ({where})")
        typer.echo("    " + " ".join(hit["text"].split())[:200])


@documents_app.command("list")
def documents_list(tenant: TenantOption = "default", json_out: JsonOption = False) -> None:
    """Documents of the tenant, grouped by set."""
    settings = load_settings()

    async def go() -> list[Document]:
        async with open_container(settings) as container:
            tenant_id = await container.documents.ensure_tenant(tenant)
            return await container.documents.list(tenant_id)

    documents = run(go)
    if json_out:
        typer.echo(json.dumps([d.model_dump(mode="json", exclude={"file_path"})
                               for d in documents], indent=2))
        return
    for d in documents:
        group = d.set.name if d.set else "(global)"
        # Whether it is current says something only of a document with versions.
        standing = f"  [{_standing(d)}]" if d.family_id else ""
        typer.echo(f"{group:<16} {d.id}  {d.doc_type.label:<17} {d.status.value:<10} "
                   f"{d.chunk_count:>5}  {d.title} {d.version}".rstrip() + standing)


@documents_app.command("versions")
def documents_versions(document_id: UUID, tenant: TenantOption = "default",
                       json_out: JsonOption = False) -> None:
    """The versions of a document, earliest first: label, effective date, which is current."""
    settings = load_settings()

    async def go() -> list[Document]:
        async with open_container(settings) as container:
            tenant_id = await container.documents.ensure_tenant(tenant)
            return await container.documents.versions(tenant_id, document_id)

    chain = run(go)
    if json_out:
        typer.echo(json.dumps([
            {"document_id": str(d.id), "title": d.title, "version": d.version,
             "effective_date": d.effective_date.isoformat() if d.effective_date else None,
             "status": d.status.value, "is_current": d.is_current,
             "supersedes_id": str(d.supersedes_id) if d.supersedes_id else None}
            for d in chain], indent=2))
        return
    for d in chain:
        effective = d.effective_date.isoformat() if d.effective_date else "-"
        typer.echo(f"{d.id}  {d.version or '-':<12} {effective:<10}  {d.status.value:<10} "
                   f"{_standing(d):<24} {d.title}")


@documents_app.command("delete")
def documents_delete(document_id: UUID, tenant: TenantOption = "default") -> None:
    """Delete a document, its chunks and its stored file."""
    settings = load_settings()

    async def go() -> Document:
        async with open_container(settings) as container:
            tenant_id = await container.documents.ensure_tenant(tenant)
            return await container.ingestion.delete(tenant_id, document_id)

    document = run(go)
    typer.echo(f"deleted {document.id} ({document.title})")


@app.command("reindex")
def reindex_cmd(
    everything: Annotated[bool, typer.Option("--all", help="Re-embed every document.")] = False,
    tenant: TenantOption = "default",
) -> None:
    """Re-embed documents whose embedding model differs from the configured one."""
    settings = load_settings()

    async def go() -> int:
        async with open_container(settings) as container:
            tenant_id = await container.documents.ensure_tenant(tenant)
            count = await container.reindexer.run(tenant_id, everything=everything)
            await container.ingestion.run_follow_ups()
            return count

    try:
        count = run(go)
    except RegintelError as exc:
        fail(exc)
    typer.echo(f"re-embedded {count} document(s)")
