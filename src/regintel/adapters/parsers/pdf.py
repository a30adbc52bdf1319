"""PDF via PyMuPDF: the text layer of each page, 1-based page numbers. No OCR."""

from __future__ import annotations

import threading
from typing import Any

from regintel.adapters.parsers._common import missing_extra, normalise_newlines
from regintel.domain.documents import ParsedDocument, ParsedPage
from regintel.errors import DocumentRejected

MIME_TYPE = "application/pdf"
# A page "has text" with at least this many non-space characters; fewer is a page number or
# a stamp on a scanned image.
MIN_PAGE_CHARS = 16
# MuPDF keeps global state (warnings, error display) and PyMuPDF is not thread-safe; the
# ingestion job parses in worker threads, so one PDF at a time.
_LOCK = threading.Lock()
_UNREADABLE_HINT = "re-export or re-download the PDF and upload it again"


def unreadable(detail: str = "it is damaged or incomplete") -> DocumentRejected:
    return DocumentRejected(f"the file could not be read as a PDF: {detail}",
                            hint=_UNREADABLE_HINT)


def parse_pdf(data: bytes) -> ParsedDocument:
    with _LOCK:
        return _parse(data)


def _parse(data: bytes) -> ParsedDocument:
    try:
        import pymupdf as _pymupdf
    except ImportError as exc:
        raise missing_extra("PDF", exc) from exc
    # PyMuPDF's annotations are partial (untyped Document(), close(), TOOLS), which strict
    # mypy rejects call by call; treat the module as dynamic here, its only user.
    pymupdf: Any = _pymupdf
    # MuPDF prints repair notices and errors to stderr; we report them as DocumentRejected.
    pymupdf.TOOLS.mupdf_display_errors(False)
    pymupdf.TOOLS.mupdf_display_warnings(False)
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except (RuntimeError, ValueError) as exc:  # FileDataError is a RuntimeError
        raise unreadable() from exc
    try:
        # MuPDF's default keeps typeset ligatures as single characters ("ﬁnancial"), which
        # neither full-text search nor the embedding model reads as the word: spell them out.
        return _extract(doc, pymupdf.TEXTFLAGS_TEXT & ~pymupdf.TEXT_PRESERVE_LIGATURES)
    except (RuntimeError, ValueError) as exc:  # even page_count raises on a broken page tree
        raise unreadable() from exc
    finally:
        doc.close()
        # MuPDF keeps every warning in a process-wide list; don't let it grow per upload.
        pymupdf.TOOLS.reset_mupdf_warnings()


def _extract(doc: Any, flags: int) -> ParsedDocument:
    if doc.needs_pass:
        raise DocumentRejected(
            "the PDF is password-protected",
            hint="remove the password, e.g. by printing it to a new PDF, and upload it again",
        )
    if doc.page_count == 0:
        raise unreadable("it has no pages")
    texts = [normalise_newlines(page.get_text("text", flags=flags)) for page in doc]
    _check_text(texts, repaired=bool(doc.is_repaired))
    title = str((doc.metadata or {}).get("title") or "").strip()
    pages = tuple(ParsedPage(number=i, text=t) for i, t in enumerate(texts, start=1))
    return ParsedDocument(mime_type=MIME_TYPE, pages=pages, title=title or None)


def _check_text(texts: list[str], *, repaired: bool) -> None:
    has_text = [len("".join(t.split())) >= MIN_PAGE_CHARS for t in texts]
    if repaired and not all(has_text):
        # MuPDF rebuilt a broken file and some pages came back empty: most likely truncated.
        missing = [str(i) for i, ok in enumerate(has_text, start=1) if not ok]
        raise unreadable("it is damaged or truncated (no text recovered from page "
                         f"{', '.join(missing[:10])}{'…' if len(missing) > 10 else ''})")
    # Under a tenth of the pages with text: indexing it would silently drop most content.
    if sum(has_text) * 10 < len(texts) or not any(has_text):
        raise DocumentRejected(
            "the PDF has no extractable text: it looks like a scanned (image-only) PDF, "
            "and OCR is not supported",
            hint="run OCR on it or export it with a text layer, then upload the result",
        )
