"""What changed between two versions of a document in the library (issue 48): the change
report of changes/, prepared when the later version was ingested (changes/versions.py) or
made now from the two documents' stored text. Both must be the caller's organisation's and
ready."""

from __future__ import annotations

from typing import Annotated, Literal
from uuid import UUID

from fastapi import APIRouter, Query, Response

from regintel.api.deps import ContainerDep, PrincipalDep
from regintel.changes import impact_export
from regintel.changes.impacting import ImpactReport
from regintel.changes.models import ChangeReport
from regintel.reports.export import MEDIA_TYPES, ExportFormat

router = APIRouter(prefix="/api", tags=["documents"])
_PROBLEMS: dict[int | str, dict[str, object]] = {
    400: {"description": "A version not ready yet, or the same document twice"},
    401: {"description": "Not signed in"},
    404: {"description": "No such document in this organisation"},
}


@router.get("/documents/{document_id}/changes", response_model=ChangeReport,
            operation_id="document_changes", responses=_PROBLEMS)
async def document_changes(
        document_id: UUID, principal: PrincipalDep, container: ContainerDep,
        earlier: Annotated[UUID, Query(alias="from", description="The earlier version.")],
) -> ChangeReport:
    """Each change from the version ``from`` to this document: its kind (inserted, deleted,
    amended, renumbered, moved, split, merged), substantive or editorial, a word-level
    redline, a typed summary and both quotes verbatim, with a table of contents."""
    return await container.version_changes.report(principal.tenant_id, earlier, document_id)


ImpactFormat = Literal[ExportFormat.XLSX, ExportFormat.DOCX]
Earlier = Annotated[UUID | None, Query(alias="from", description="The earlier version; "
                                       "default: the version before this one in its chain.")]


@router.get("/documents/{document_id}/impact", response_model=ImpactReport,
            operation_id="document_impact", responses=_PROBLEMS)
async def document_impact(document_id: UUID, principal: PrincipalDep, container: ContainerDep,
                          earlier: Earlier = None) -> ImpactReport:
    """What the change from the version ``from`` to this document touches: each obligation
    it adds, removes, alters, renumbers or edits for form; the review decisions in force on
    obligations it altered or removed (they reopen); the project items citing rewritten text."""
    impact = container.impact
    tenant = principal.tenant_id
    old = earlier if earlier is not None else await impact.previous(tenant, document_id)
    return await impact.report(tenant, old, document_id)


@router.get("/documents/{document_id}/impact/export", operation_id="export_impact",
            response_class=Response, responses={**_PROBLEMS, 200: {
                "description": "The impact report as a file",
                "content": {MEDIA_TYPES[f]: {} for f in (ExportFormat.XLSX, ExportFormat.DOCX)}}})
async def export_impact(document_id: UUID, principal: PrincipalDep, container: ContainerDep,
                        earlier: Earlier = None,
                        format: Annotated[ImpactFormat, Query(
                            description="xlsx (a sheet a table) or docx (CSV has no room "
                                        "for three tables)")] = ExportFormat.XLSX
                        ) -> Response:
    """The impact report as a file to hand on."""
    report = await document_impact(document_id, principal, container, earlier)
    data = (impact_export.to_xlsx(report) if format is ExportFormat.XLSX
            else impact_export.to_docx(report))
    stem = "".join(ch if ch.isalnum() else "-" for ch in f"impact-{report.new_name}")[:80]
    return Response(data, media_type=MEDIA_TYPES[format], headers={
        "Content-Disposition": f'attachment; filename="{stem.strip("-")}.{format.value}"'})
