"""Document parsers: ``AutoParser`` sniffs the content and dispatches to one module per format.
PyMuPDF, python-docx and selectolax (the ``parsers`` extra) are imported only when a file of
their format arrives."""

from __future__ import annotations

from typing import assert_never

from regintel.adapters.parsers._common import SUPPORTED, empty
from regintel.adapters.parsers.docx import parse_docx
from regintel.adapters.parsers.html import decode_html, parse_html
from regintel.adapters.parsers.markdown import parse_markdown
from regintel.adapters.parsers.pdf import parse_pdf
from regintel.adapters.parsers.sniff import MAX_DOCX_XML_BYTES, Kind, sniff
from regintel.adapters.parsers.text import decode_utf8, parse_text
from regintel.domain.documents import ParsedDocument

__all__ = ["SUPPORTED", "AutoParser", "Kind", "sniff"]


class AutoParser:
    """``DocumentParser`` for every supported format. Every unusable input raises
    ``DocumentRejected`` with a message meant for the person who uploaded it."""

    def __init__(self, *, max_docx_xml_bytes: int = MAX_DOCX_XML_BYTES) -> None:
        self._max_docx_xml_bytes = max_docx_xml_bytes

    def detect(self, data: bytes, filename: str) -> str:
        """The MIME type, checked only as far as is cheap at upload: the format, ZIP limits,
        and for text formats the encoding and emptiness. Full parsing happens in the job."""
        kind = self._sniff(data, filename)
        if kind in (Kind.TEXT, Kind.MARKDOWN):
            if not decode_utf8(data).strip():
                raise empty()
        elif kind is Kind.HTML:
            decode_html(data)
        return kind.value

    def parse(self, data: bytes, filename: str) -> ParsedDocument:
        kind = self._sniff(data, filename)
        match kind:
            case Kind.PDF:
                doc = parse_pdf(data)
            case Kind.DOCX:
                doc = parse_docx(data)
            case Kind.HTML:
                doc = parse_html(data)
            case Kind.MARKDOWN:
                doc = parse_markdown(data)
            case Kind.TEXT:
                doc = parse_text(data)
            case _:
                assert_never(kind)
        if all(not page.text.strip() for page in doc.pages):
            raise empty()
        return doc

    def _sniff(self, data: bytes, filename: str) -> Kind:
        if not data.removeprefix(b"\xef\xbb\xbf").strip():  # bytes.strip: ASCII whitespace
            raise empty()
        return sniff(data, filename, max_docx_xml_bytes=self._max_docx_xml_bytes)
