"""Decide what a file is from its bytes. The extension only separates Markdown from plain text
(and lets an `.html` file without a doctype count as HTML); it never overrides the content, so
a PNG renamed to `.pdf` is rejected as an image."""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Collection
from enum import StrEnum
from pathlib import PurePath

from regintel.adapters.parsers._common import unsupported
from regintel.adapters.parsers.text import not_utf8
from regintel.errors import DocumentRejected

MB = 1024 * 1024
MAX_DOCX_XML_BYTES = 200 * MB
MAX_DOCX_TOTAL_BYTES = 512 * MB  # python-docx loads every part into memory, not just the text
MAX_ZIP_ENTRIES = 10_000


class Kind(StrEnum):
    """A supported format; the value is its MIME type."""

    PDF = "application/pdf"
    DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
    HTML = "text/html"
    MARKDOWN = "text/markdown"
    TEXT = "text/plain"


# Checked in order against the start of the file; first match names what the file looks like.
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
    (b"\x00\x00\x01\x00", "an icon image"),
    (b"\x7fELF", "a Linux executable"),
    (b"MZ", "a Windows executable"),
    (b"\xfe\xed\xfa\xce", "a macOS executable"),
    (b"\xfe\xed\xfa\xcf", "a macOS executable"),
    (b"\xcf\xfa\xed\xfe", "a macOS executable"),
    (b"\xca\xfe\xba\xbe", "a Java class or macOS executable"),
    (b"\x00asm", "a WebAssembly module"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
     "a legacy or password-protected Microsoft Office file (.doc/.xls/.ppt)"),
    (b"{\\rtf", "an RTF document"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"BZh", "a bzip2 archive"),
    (b"\xfd7zXZ\x00", "an xz archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"Rar!\x1a\x07", "a RAR archive"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"OggS", "an audio or video file"),
    (b"ID3", "an MP3 audio file"),
    (b"fLaC", "a FLAC audio file"),
)
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_HTML_START = (b"<!doctype html", b"<html")
_HTML_EXTS = {".html", ".htm", ".xhtml"}
_MARKDOWN_EXTS = {".md", ".markdown"}
_MARKUP = re.compile(rb"<[a-zA-Z!/]")
_LEADING = b" \t\r\n\f\v"
_BOM = b"\xef\xbb\xbf"


def sniff(data: bytes, filename: str, *, max_docx_xml_bytes: int = MAX_DOCX_XML_BYTES) -> Kind:
    """The format of ``data``, or ``DocumentRejected`` naming what it looks like instead."""
    head = data[:8192]
    if head.startswith(_ZIP_MAGIC):
        return _sniff_zip(data, max_docx_xml_bytes)
    if _is_pdf(head):
        return Kind.PDF
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise not_utf8("it is UTF-16")
    if looks_like := _binary_kind(head):
        raise unsupported(looks_like)
    if b"\x00" in head:
        raise unsupported("a binary file")

    start = head.removeprefix(_BOM).lstrip(_LEADING)[:1024].lower()
    if start.startswith(_HTML_START) or (
        start.startswith(b"<?xml") and any(tag in start for tag in _HTML_START)
    ):
        return Kind.HTML
    ext = PurePath(filename).suffix.lower()
    if ext in _HTML_EXTS and _MARKUP.search(head):
        return Kind.HTML
    if ext in _MARKDOWN_EXTS:
        return Kind.MARKDOWN
    return Kind.TEXT


def _is_pdf(head: bytes) -> bool:
    """The header may follow binary junk (readers tolerate up to 1 KB of it), but a text file
    that merely mentions "%PDF-" is still text."""
    at = head.find(b"%PDF-", 0, 1024)
    return at >= 0 and (not head[:at].strip(_LEADING + _BOM) or b"\x00" in head[:at])


def _binary_kind(head: bytes) -> str | None:
    for magic, label in _MAGIC:
        if head.startswith(magic):
            return label
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "a WebP image"
    if head[4:8] == b"ftyp":
        return "an image, audio or video file (ISO media)"
    return None


def _sniff_zip(data: bytes, max_docx_xml_bytes: int) -> Kind:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            infos = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError) as exc:
        raise DocumentRejected(
            "the file could not be read: it is a damaged ZIP archive (DOCX files are ZIPs)",
            hint="re-save or re-download the document and upload it again",
        ) from exc
    # Declared sizes are what zipfile will decompress to at most, so checking them bounds
    # memory before python-docx inflates anything (zip-bomb guard).
    if len(infos) > MAX_ZIP_ENTRIES:
        raise _too_big(f"it has {len(infos):,} entries; the limit is {MAX_ZIP_ENTRIES:,}")
    by_name = {info.filename: info for info in infos}
    if "word/document.xml" not in by_name:
        raise unsupported(_zip_kind(by_name.keys()))
    text_size = by_name["word/document.xml"].file_size
    if text_size > max_docx_xml_bytes:
        raise _too_big(f"its text expands to {text_size / MB:,.0f} MB; "
                       f"the limit is {max_docx_xml_bytes / MB:,.0f} MB")
    total = sum(info.file_size for info in infos)
    if total > MAX_DOCX_TOTAL_BYTES:
        raise _too_big(f"it expands to {total / MB:,.0f} MB; "
                       f"the limit is {MAX_DOCX_TOTAL_BYTES / MB:,.0f} MB")
    return Kind.DOCX


def _zip_kind(names: Collection[str]) -> str:
    if "xl/workbook.xml" in names:
        return "an Excel workbook (XLSX)"
    if "ppt/presentation.xml" in names:
        return "a PowerPoint presentation (PPTX)"
    if "content.xml" in names and "mimetype" in names:
        return "an OpenDocument file (ODT/ODS/ODP)"
    if "META-INF/container.xml" in names:
        return "an EPUB e-book"
    return "a ZIP archive"


def _too_big(detail: str) -> DocumentRejected:
    return DocumentRejected(
        f"the Word document is too large to process safely: {detail}",
        hint="split the document or remove embedded media, then upload it again")
