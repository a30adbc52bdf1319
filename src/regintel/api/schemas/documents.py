"""The document library: upload metadata, documents, sets."""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from pydantic import BaseModel, Field, StringConstraints

from regintel.api.schemas.common import RequestBody, not_blank
from regintel.domain.documents import DocType, DocumentPublic, DocumentSetPublic


class DocumentCreate(RequestBody):
    """The metadata fields sent beside the ``file`` part of the upload form."""

    title: Annotated[str, StringConstraints(strip_whitespace=True,
                                            min_length=1, max_length=300), not_blank(1)]
    version: Annotated[str, StringConstraints(strip_whitespace=True, max_length=100)] = ""
    doc_type: DocType
    set_name: Annotated[str, StringConstraints(strip_whitespace=True, max_length=100)] = ""


UPLOAD_FORM_SCHEMA: dict[str, object] = {
    "type": "object",
    "required": ["file", "title", "doc_type"],
    "additionalProperties": False,  # like every request body: unknown fields are refused
    "properties": {
        "file": {"type": "string", "format": "binary",
                 "description": "PDF, DOCX, HTML, Markdown or plain text; the type is "
                 "decided from the content, not the extension."},
        "title": {"type": "string", "minLength": 1, "maxLength": 300,
                  "pattern": DocumentCreate.model_json_schema()["properties"]["title"]["pattern"]},
        "version": {"type": "string", "maxLength": 100},
        "doc_type": {"type": "string", "enum": [t.value for t in DocType]},
        "set_name": {"type": "string", "maxLength": 100,
                     "description": "A set to file it under (created on first use)."},
    },
}


class DocumentUploaded(BaseModel):
    document: DocumentPublic
    created: bool = Field(description="False: the same file was already in the library.")


class DocumentGroup(BaseModel):
    set: DocumentSetPublic | None = Field(description="None: documents outside any set.")
    document_ids: list[UUID]


class DocumentsPublic(BaseModel):
    data: list[DocumentPublic]
    count: int
    groups: list[DocumentGroup] = Field(description="The library grouped by set (with its "
                                        "colour), sets by name, ungrouped last.")


class SetPublic(DocumentSetPublic):
    document_count: int


class SetsPublic(BaseModel):
    data: list[SetPublic]
    count: int
