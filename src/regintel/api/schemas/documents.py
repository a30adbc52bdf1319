"""The document library: upload metadata, documents, sets."""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated
from uuid import UUID

from pydantic import BaseModel, BeforeValidator, Field, StringConstraints

from regintel.api.schemas.common import RequestBody, not_blank
from regintel.domain.documents import DocType, DocumentPublic, DocumentSetPublic


def _form_date(value: object) -> date | None:
    """A form's date field: blank for none, else YYYY-MM-DD exactly (as JSON Schema's
    ``full-date``; not the other spellings ``date.fromisoformat`` takes)."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value):
        raise ValueError("a date is written YYYY-MM-DD")
    return date.fromisoformat(value)


class DocumentCreate(RequestBody):
    """The metadata fields sent beside the ``file`` part of the upload form."""

    title: Annotated[str, StringConstraints(strip_whitespace=True,
                                            min_length=1, max_length=300), not_blank(1)]
    version: Annotated[str, StringConstraints(strip_whitespace=True, max_length=100)] = ""
    doc_type: DocType
    set_name: Annotated[str, StringConstraints(strip_whitespace=True, max_length=100)] = ""
    version_of: Annotated[str, StringConstraints(strip_whitespace=True, max_length=300)] = ""
    effective: Annotated[date | None, BeforeValidator(_form_date)] = None


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
        "version_of": {"type": "string", "maxLength": 300,
                       "description": "The id or exact title of a document of the library "
                       "this file is a new version of (then `version` is its label, and its "
                       "set defaults to that document's)."},
        "effective": {"anyOf": [{"type": "string", "format": "date"},
                                {"type": "string", "maxLength": 0}],
                      "description": "YYYY-MM-DD: when this version takes effect; blank: "
                      "from its upload. A version dated in the future is not current yet."},
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


class VersionsPublic(BaseModel):
    """A document's versions, earliest first."""

    family_id: UUID | None = Field(description="The first version's id; None: the document "
                                   "has no other version.")
    current_id: UUID | None = Field(description="The version search and answers read "
                                    "(None while no version is ready).")
    data: list[DocumentPublic]
    count: int


class SetPublic(DocumentSetPublic):
    document_count: int


class SetsPublic(BaseModel):
    data: list[SetPublic]
    count: int
