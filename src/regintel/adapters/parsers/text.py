"""Plain text: strict UTF-8 (a BOM is fine), pages split at form feeds."""

from __future__ import annotations

from regintel.adapters.parsers._common import normalise_newlines
from regintel.domain.documents import ParsedDocument, ParsedPage
from regintel.errors import DocumentRejected

MIME_TYPE = "text/plain"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_NOT_UTF8_HINT = "re-save it with the UTF-8 encoding and upload it again"


def not_utf8(detail: str) -> DocumentRejected:
    return DocumentRejected(f"the file is not UTF-8 text: {detail}", hint=_NOT_UTF8_HINT)


def decode_utf8(data: bytes) -> str:
    """Decode strictly: guessing a legacy encoding silently corrupts quotes, dashes and
    currency signs in regulatory text, so anything that is not UTF-8 is refused."""
    if data.startswith(_UTF16_BOMS):
        raise not_utf8("it is UTF-16")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise not_utf8(f"invalid byte 0x{data[exc.start]:02x} at offset {exc.start}") from exc


def split_pages(text: str) -> tuple[ParsedPage, ...]:
    """Form feeds are page breaks (pdftotext and many exports emit them). A trailing form feed
    ends the last page rather than starting an empty one."""
    parts = text.split("\f")
    if len(parts) > 1 and parts[-1] == "":
        parts.pop()
    return tuple(ParsedPage(number=i, text=part) for i, part in enumerate(parts, start=1))


def parse_text(data: bytes) -> ParsedDocument:
    text = normalise_newlines(decode_utf8(data))
    return ParsedDocument(mime_type=MIME_TYPE, pages=split_pages(text))
