"""DOCX parsing and ZIP checks against real files made with python-docx and zipfile."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import docx
import pytest

from regintel.adapters.parsers import AutoParser
from regintel.errors import DocumentRejected
from tests.contract.parsers.files import Rejection, write

MB = 1024 * 1024


def make_docx() -> bytes:
    document = docx.Document()
    document.core_properties.title = "Outsourcing Policy"
    document.add_heading("1. Scope", level=1)
    document.add_paragraph("This policy applies to every outsourcing arrangement.")
    document.add_paragraph("")  # Word's vertical spacing, not content
    document.add_heading("2. Definitions", level=2)
    table = document.add_table(rows=3, cols=2)
    for row, (term, meaning) in zip(table.rows, [("Term", "Meaning"), ("ADGM", "Abu Dhabi "
                                    "Global Market"), ("FSRA", "the Regulator")], strict=True):
        row.cells[0].text, row.cells[1].text = term, meaning
    document.add_paragraph("2.1\tThe table above is part of this policy.")
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def make_zip(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_docx_keeps_headings_paragraphs_and_tables_in_order(tmp_path: Path,
                                                            parser: AutoParser) -> None:
    path = write(tmp_path, "policy.docx", make_docx())
    doc = parser.parse(path.read_bytes(), path.name)

    assert doc.mime_type == ("application/vnd.openxmlformats-officedocument"
                             ".wordprocessingml.document")
    assert doc.title == "Outsourcing Policy"
    assert [p.number for p in doc.pages] == [1]
    assert doc.pages[0].text == (
        "1. Scope\n\n"
        "This policy applies to every outsourcing arrangement.\n\n"
        "2. Definitions\n\n"
        "Term\tMeaning\nADGM\tAbu Dhabi Global Market\nFSRA\tthe Regulator\n\n"
        "2.1\tThe table above is part of this policy."
    )
    assert parser.detect(path.read_bytes(), path.name) == doc.mime_type


def test_docx_detected_by_content_whatever_the_name(parser: AutoParser) -> None:
    assert parser.parse(make_docx(), "upload.bin").title == "Outsourcing Policy"


def test_random_zip_named_docx_is_unsupported(tmp_path: Path, rejected: Rejection,
                                              parser: AutoParser) -> None:
    path = write(tmp_path, "policy.docx", make_zip({"notes.txt": b"hello"}))
    exc = rejected(path.read_bytes(), path.name)
    assert exc.message == "unsupported file type: it looks like a ZIP archive"
    assert exc.hint == "supported types: PDF, DOCX, HTML, Markdown, plain text"


def test_xlsx_is_named_as_a_workbook(rejected: Rejection) -> None:
    data = make_zip({"[Content_Types].xml": b"<Types/>", "xl/workbook.xml": b"<workbook/>"})
    exc = rejected(data, "policy.docx")
    assert exc.message == "unsupported file type: it looks like an Excel workbook (XLSX)"


def test_zip_bomb_docx_is_rejected_before_inflating(tmp_path: Path, rejected: Rejection) -> None:
    # 8 MB of zeros compresses to a few KB; the declared size gives it away.
    data = make_zip({"[Content_Types].xml": b"<Types/>", "word/document.xml": bytes(8 * MB)})
    assert len(data) < 100_000
    path = write(tmp_path, "bomb.docx", data)
    small_limit = AutoParser(max_docx_xml_bytes=1 * MB)
    expected = ("the Word document is too large to process safely: its text expands to 8 MB; "
                "the limit is 1 MB")
    for check in (small_limit.detect, small_limit.parse):
        with pytest.raises(DocumentRejected, match=re.escape(expected)):
            check(path.read_bytes(), path.name)
    # Under the default 200 MB limit the same file is simply not a valid document.
    assert "could not be read as a Word (DOCX) document" in rejected(data, "bomb.docx").message


def test_damaged_docx_could_not_be_read(rejected: Rejection) -> None:
    broken = make_zip({"word/document.xml": b"<w:document"})
    exc = rejected(broken, "broken.docx")
    assert exc.message == "the file could not be read as a Word (DOCX) document"
    truncated = make_docx()[:200]
    assert "damaged ZIP archive" in rejected(truncated, "cut.docx").message
