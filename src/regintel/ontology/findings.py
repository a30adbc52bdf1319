"""From finding to work: an audit finding becomes a requirement, risk or task in a project,
carrying the regulation chunk it cites and linked to the project's entry for that regulation."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any, Protocol
from uuid import UUID

from regintel.domain.chat import AuditFinding, Citation, quoted
from regintel.domain.ontology import Edge, Entity, EntityKind
from regintel.errors import InvalidRequest
from regintel.ontology.store import OntologyStore

# Audit severity → risk impact and task/requirement priority (1 highest).
_IMPACT = {"Critical": "critical", "High": "high", "Medium": "medium", "Low": "low"}
_PRIORITY = {"Critical": 1, "High": 2, "Medium": 3, "Low": 4}
TITLE_CHARS = 160


class ProjectWriter(Protocol):
    """What turning a finding into work needs of the project service (``service``, which
    offers this module's work through its own method: it imports us, never the other way)."""

    @property
    def store(self) -> OntologyStore: ...

    async def create_entity(self, tenant_id: UUID, project_id: UUID, kind: EntityKind,
                            fields: Mapping[str, Any], *, link_to_project: bool = True,
                            created_by: UUID | None = None) -> Entity: ...

    async def link(self, tenant_id: UUID, src_id: UUID, rel: str, dst_id: UUID) -> Edge: ...


class WorkKind(StrEnum):
    REQUIREMENT = "requirement"
    RISK = "risk"
    TASK = "task"


def _cited_chunk(finding: AuditFinding, citations: Sequence[Citation]) -> Citation:
    """The regulation chunk the finding rests on: its first cited document citation."""
    by_n = {c.n: c for c in citations}
    for n in finding.citations:
        cited = by_n.get(n)
        if cited is not None and cited.source_type == "document" and cited.document_id:
            return cited
    raise InvalidRequest("the finding cites no regulation chunk",
                         hint="pass the citations of the audit response the finding came from")


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= TITLE_CHARS else text[:TITLE_CHARS - 1].rstrip() + "…"


def _fields(kind: WorkKind, finding: AuditFinding, props: dict[str, Any]) -> dict[str, Any]:
    what = finding.theme or ("Gap" if finding.kind == "gap" else "Conflict")
    match kind:
        case WorkKind.REQUIREMENT:
            return {"text": finding.suggestion or finding.consequence,
                    "priority": _PRIORITY[finding.severity],
                    "type_key": "requirement.regulatory", "props": props}
        case WorkKind.RISK:
            return {"title": _short(f"{what}: {finding.consequence}"),
                    "content": f"{finding.consequence}\n\n{finding.target_doc_title}: "
                               f"{quoted(finding.target_quote)}"
                               + (f"\n\nPolicy says: {quoted(finding.source_quote)}"
                                  if finding.source_quote else "")
                               + f"\n\nSuggested fix: {finding.suggestion}",
                    "impact": _IMPACT[finding.severity], "type_key": "risk.compliance",
                    "props": props}
        case WorkKind.TASK:
            return {"title": _short(f"Fix {finding.kind}: {finding.suggestion}"),
                    "description": f"{finding.consequence}\n\nIn {finding.target_doc_title}: "
                                   f"{quoted(finding.target_quote)}",
                    "priority": _PRIORITY[finding.severity], "type_key": "task.remediation",
                    "props": props}


async def ensure_document_entry(service: ProjectWriter, tenant_id: UUID, project_id: UUID,
                                document_id: UUID, title: str) -> Entity:
    """The project's onto_documents entry for a library document, created (and linked to the
    project) when missing."""
    for entry in await service.store.members(tenant_id, project_id, EntityKind.DOCUMENT):
        if entry.data.get("document_id") == document_id:
            return entry
    library_title = await service.store.library_title(tenant_id, document_id)
    return await service.create_entity(
        tenant_id, project_id, EntityKind.DOCUMENT,
        {"title": library_title or title, "document_id": document_id,
         "type_key": "document.regulation", "state_key": "active"})


async def work_from_finding(service: ProjectWriter, tenant_id: UUID, project_id: UUID,
                            finding: AuditFinding, citations: Sequence[Citation],
                            kind: WorkKind = WorkKind.TASK, *,
                            created_by: UUID | None = None) -> Entity:
    """Create the requirement, risk or task for ``finding`` in the project, directly linked to
    the project and ``references``-linked to the regulation's document entry."""
    chunk = _cited_chunk(finding, citations)
    assert chunk.document_id is not None
    props: dict[str, Any] = {
        "source_document_id": str(chunk.document_id),
        "source_chunk_id": str(chunk.chunk_id) if chunk.chunk_id else None,
        "source_title": chunk.title, "source_page": chunk.page, "source_clause": chunk.clause,
        "source_quote": chunk.quote, "severity": finding.severity,
        "finding_kind": finding.kind, "finding_theme": finding.theme,
        "target_doc_id": str(finding.target_doc_id), "target_page": finding.target_page,
        "target_clause": finding.target_clause, "confidence": finding.confidence_score,
    }
    props = {k: v for k, v in props.items() if v is not None}
    document = await ensure_document_entry(service, tenant_id, project_id, chunk.document_id,
                                           chunk.title)
    entity = await service.create_entity(tenant_id, project_id, EntityKind(kind.value),
                                         _fields(kind, finding, props), created_by=created_by)
    await service.link(tenant_id, entity.id, "references", document.id)
    return entity
