"""Documents, their parsed pages and their chunks (pydantic models, and one plain dataclass
for how much of a question each search candidate holds)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum
from typing import Any
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field


class DocType(StrEnum):
    REGULATION = "regulation"  # shown as "Regulatory Source"
    POLICY = "policy"  # shown as "Company Policy"

    @property
    def label(self) -> str:
        return "Regulatory Source" if self is DocType.REGULATION else "Company Policy"


class DocStatus(StrEnum):
    QUEUED = "queued"
    PROCESSING = "processing"
    READY = "ready"
    FAILED = "failed"


# Formats whose pages are real (a reader sees and cites them). Every other format is read as
# one text: its passages are cited by section and line, never by a page it does not have.
PAGED_MIME_TYPES = frozenset({"application/pdf"})
# Between the headings of a section path: "Part 3 › Chapter 14 › 14.2 Internal reporting".
SECTION_SEPARATOR = " › "


def short_title(title: str) -> str:
    """A title's short name when it gives one in parentheses ("… Rulebook (MCR)")."""
    found = re.search(r"\(([A-Z][A-Z0-9]{1,9})\)\s*$", title)
    return found.group(1) if found else title


def titled(title: str, version: str | None) -> str:
    """A document's title with its version after it ("AML Rules (2025)"), unless the title
    already says it ("GDPR (Regulation (EU) 2016/679)" with version "2016/679")."""
    version = (version or "").strip()
    if not version or version.lower() in title.lower():
        return title
    return f"{title} ({version})"


def has_pages(mime_type: str) -> bool:
    """True for formats with real pages (PDF); False for text, Markdown, HTML, DOCX."""
    return mime_type in PAGED_MIME_TYPES


class ParsedHeading(BaseModel):
    """A heading the format itself marks (Markdown ``#``, HTML ``h1``-``h6``, a DOCX heading
    style): where it starts in its page's text, its level (1 outermost) and its text."""

    model_config = ConfigDict(frozen=True)

    offset: int = Field(ge=0)
    level: int = Field(ge=0, le=9)
    title: str


class ParsedPage(BaseModel):
    model_config = ConfigDict(frozen=True)

    number: int = Field(ge=1, description="1-based page number as printed by the viewer.")
    text: str
    headings: tuple[ParsedHeading, ...] = Field(
        (), description="Headings the format marks, in order; empty when it marks none (the "
        "chunker then finds numbered headings such as \"14.2 Internal reporting\" itself).")


class ParsedDocument(BaseModel):
    """What a parser returns: text per page (documents without pages have one page, or pages
    split at form feeds), the detected MIME type, and a title when the file carries one."""

    model_config = ConfigDict(frozen=True)

    mime_type: str
    pages: tuple[ParsedPage, ...]
    title: str | None = None

    @property
    def char_count(self) -> int:
        return sum(len(p.text) for p in self.pages)

    @property
    def paged(self) -> bool:
        """Whether the pages are real; a text file split at form feeds has none a reader sees."""
        return has_pages(self.mime_type)


class ChunkSpan(BaseModel):
    """Where a chunk's text sits in its document. Offsets index the text of ``page_start``:
    ``page_text[char_start:char_end] == text`` when the chunk lies on one page, which is how a
    quote is verified against its source."""

    model_config = ConfigDict(frozen=True)

    ordinal: int = Field(ge=0)
    text: str
    page_start: int = Field(ge=1)
    page_end: int = Field(ge=1)
    char_start: int = Field(ge=0)
    char_end: int = Field(ge=0)
    clause: str | None = None
    # Where the chunk sits for a reader of a document without pages, and in any document its
    # headings: the section path in effect where the chunk starts ("Part 3 › Chapter 14 ›
    # 14.2 Internal reporting"), and (offset in ``text``, path) wherever a heading inside the
    # chunk changes it. None and () for chunks stored before sections were recorded.
    section: str | None = None
    section_changes: tuple[tuple[int, str], ...] = ()
    # 1-based, inclusive lines of the document's text the chunk spans (documents without
    # pages only: in a PDF the page is the reference).
    line_start: int | None = Field(None, ge=1)
    line_end: int | None = Field(None, ge=1)

    def section_at(self, offset: int) -> str | None:
        """The section path in effect at ``offset`` of the chunk's text."""
        path = self.section
        for at, changed in self.section_changes:
            if at > offset:
                break
            path = changed
        return path

    def lines_of(self, start: int, end: int) -> tuple[int, int] | None:
        """The lines holding ``text[start:end]`` (end exclusive), when lines are recorded."""
        if self.line_start is None:
            return None
        first = self.line_start + self.text.count("\n", 0, start)
        return first, first + self.text.count("\n", start, max(start, end - 1))


class ChunkDraft(ChunkSpan):
    """A chunk before it is embedded and stored."""


class DocumentSetPublic(BaseModel):
    id: UUID
    name: str
    colour: str


class SearchScope(BaseModel):
    """Which chunks a search may return; empty fields mean "no restriction". Of a document
    with versions, only the version current on ``as_of`` (default today) is searched, unless
    ``document_ids`` names the documents: a named document is searched whatever its version."""

    model_config = ConfigDict(frozen=True)

    document_ids: tuple[UUID, ...] = ()
    set_ids: tuple[UUID, ...] = ()
    doc_type: DocType | None = None
    as_of: date | None = None


class NewDocument(BaseModel):
    title: str = Field(min_length=1, max_length=300)
    version: str = Field("", max_length=100)
    doc_type: DocType
    set_id: UUID | None = None
    content_hash: str
    file_path: str
    original_filename: str = Field(max_length=500)
    mime_type: str
    size_bytes: int
    uploaded_by: UUID | None = None
    supersedes_id: UUID | None = None
    family_id: UUID | None = None
    effective_date: date | None = None


class DocumentPublic(BaseModel):
    id: UUID
    title: str
    version: str
    doc_type: DocType
    status: DocStatus
    status_reason: str | None = None
    set: DocumentSetPublic | None = None
    original_filename: str
    mime_type: str
    size_bytes: int
    page_count: int | None = None
    chunk_count: int = 0
    supersedes_id: UUID | None = None
    created_at: datetime
    ready_at: datetime | None = None
    chunks_embedded: int = Field(0, description="While processing: chunks embedded so far.")
    chunks_total: int = Field(0, description="While processing: chunks to embed (0 until "
                              "the file is parsed).")
    processing_started_at: datetime | None = Field(
        None, description="When its processing started (with the counts, a time left).")
    family_id: UUID | None = Field(
        None, description="Its versions' family: the first version's id; None for a "
        "document no version was added to. The label is `version`.")
    effective_date: date | None = Field(
        None, description="When this version takes effect; None: from its upload.")
    is_current: bool = Field(
        True, description="False for a version that another of its family supersedes, or "
        "that is not in force yet; search reads only current versions unless a document is "
        "named.")


class Document(DocumentPublic):
    """The stored document, with the internals the public view leaves out."""

    content_hash: str
    file_path: str
    embedding_model: str | None = None
    embedding_dim: int | None = None
    uploaded_by: UUID | None = None  # who may delete it besides admins (api/permissions.py)


class StoredChangeReport(BaseModel):
    """A change report of two versions as stored (the JSON of ``changes.models.ChangeReport``)
    with the version of the aligner that made it."""

    old_document_id: UUID
    new_document_id: UUID
    report_version: int
    report: dict[str, Any]
    created_at: datetime


class StoredChunk(ChunkSpan):
    id: UUID
    document_id: UUID


@dataclass(frozen=True)
class TermCoverage:
    """How much of a question's wording one chunk holds: the idf mass and number of the
    question's lexemes it contains, against the question's totals (a lexeme the library
    never uses counts at the highest idf, so an off-topic question stays uncovered)."""

    matched_idf: float = 0.0
    matched_terms: int = 0
    query_idf: float = 0.0
    query_terms: int = 0

    @property
    def idf_share(self) -> float:
        return self.matched_idf / self.query_idf if self.query_idf else 0.0

    @property
    def weighted_share(self) -> float:
        """The share of the question's lexemes held, weighted up by how many (research
        REPORT §3 ``qcov_len``)."""
        if not self.query_terms:
            return 0.0
        return self.matched_terms / self.query_terms * math.log1p(self.matched_terms)


class ChunkHit(ChunkSpan):
    """One retrieved chunk with its calibrated relevance (0–1) and where it came from."""

    chunk_id: UUID
    document_id: UUID
    document_title: str
    document_version: str
    doc_type: DocType
    score: float = Field(ge=0.0, le=1.0)
    # Read from the chunks before (retrieval.preceding), shown and never quoted: the lead-in
    # of the list the chunk opens inside ("4.5.1 A Relevant Person must, where relevant,
    # maintain the following records:"), and the opening words of the sentence it is cut
    # into ("A Relevant").
    lead_in: str | None = None
    opening: str | None = None
    # The clause the chunk's first words belong to, when the chunk is named after a clause
    # that starts further down (the last clause marker before it, from the chunks before).
    clause_before: str | None = None
    # The chunk just before, when this one starts inside a sentence (``opening``) that it
    # holds whole: a citation of that sentence quotes it whole from there, not from the
    # middle (retrieval.evidence.CitationBook.cite_sentence).
    opened_in: ChunkHit | None = None
    # A chunk fetched only to show in whole a list that the retrieved chunk with this id
    # shows in part (retrieval.list_context): not retrieved for the question, so it neither
    # ranks nor sets the confidence.
    completes: UUID | None = None
    # False for a document without real pages (text, Markdown, HTML, DOCX): its passages are
    # cited by section and lines, and ``page_start`` is only where its offsets count from.
    paged: bool = True

    @classmethod
    def of(cls, chunk: StoredChunk, document: Document, score: float,
           **extra: object) -> ChunkHit:
        """A stored chunk of ``document`` as evidence with relevance ``score``."""
        return cls(**chunk.model_dump(exclude={"id", "document_id"}), chunk_id=chunk.id,
                   document_id=document.id, document_title=document.title,
                   document_version=document.version, doc_type=document.doc_type,
                   paged=has_pages(document.mime_type), score=score, **extra)

    @classmethod
    def alongside(cls, chunk: StoredChunk, hit: ChunkHit, *, score: float,
                  **extra: object) -> ChunkHit:
        """Another chunk of ``hit``'s document (one next to it, say) as evidence."""
        return cls(**chunk.model_dump(exclude={"id", "document_id"}), chunk_id=chunk.id,
                   document_id=hit.document_id, document_title=hit.document_title,
                   document_version=hit.document_version, doc_type=hit.doc_type,
                   paged=hit.paged, score=score, **extra)

    dense_rank: int | None = None
    lexical_rank: int | None = None
