"""PDF parsing against real files made with PyMuPDF."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from regintel.adapters.parsers import AutoParser
from regintel.ingestion import chunk_document
from tests.contract.parsers.files import Rejection, write

PAGES = (
    "1.\tINTRODUCTION\n1.1\tApplication\n1.1.1\tThis Rulebook applies to every Authorised "
    "Person.",
    "2.\tCLIENT CLASSIFICATION\n2.1.1\tThe page-two sentence says that Clients must be "
    "classified before any Regulated Activity.",
    "3.\tCONDUCT\n3.1.1\tAn Authorised Person must act honestly and fairly.",
)


def _mupdf() -> Any:
    # PyMuPDF's annotations are partial; strict mypy would reject each call.
    import pymupdf

    return pymupdf


def make_pdf(pages: tuple[str, ...] = PAGES, *, title: str | None = "Conduct of Business",
             **save: Any) -> bytes:
    mu = _mupdf()
    doc = mu.open()
    for text in pages:
        page = doc.new_page()
        page.insert_text((72, 72), text, fontsize=10)
    if title:
        doc.set_metadata({"title": title})
    data: bytes = doc.tobytes(**save)
    doc.close()
    return data


def make_image_only_pdf(pages: int = 2) -> bytes:
    mu = _mupdf()
    doc = mu.open()
    pixmap = mu.Pixmap(mu.csRGB, mu.IRect(0, 0, 64, 64), False)
    pixmap.clear_with(128)
    for number in range(1, pages + 1):
        page = doc.new_page()
        page.insert_image(mu.Rect(72, 72, 400, 400), pixmap=pixmap)
        page.draw_rect(mu.Rect(50, 50, 420, 420))
        page.insert_text((500, 800), str(number))  # a page number is not a text layer
    data: bytes = doc.tobytes()
    doc.close()
    return data


def test_multi_page_pdf_keeps_text_per_page(tmp_path: Path, parser: AutoParser) -> None:
    path = write(tmp_path, "cobs.pdf", make_pdf())
    doc = parser.parse(path.read_bytes(), path.name)

    assert doc.mime_type == "application/pdf"
    assert doc.title == "Conduct of Business"
    assert [p.number for p in doc.pages] == [1, 2, 3]
    assert "page-two sentence" in doc.pages[1].text
    assert all("page-two" not in p.text for p in (doc.pages[0], doc.pages[2]))
    assert doc.pages[0].text.startswith("1.\tINTRODUCTION\n1.1\tApplication\n")
    assert "\r" not in "".join(p.text for p in doc.pages)

    chunks = chunk_document(doc)
    assert [(c.page_start, c.page_end) for c in chunks] == [(1, 1), (2, 2), (3, 3)]
    assert chunks[1].clause == "2"
    assert parser.detect(path.read_bytes(), path.name) == "application/pdf"


def test_typeset_ligatures_are_spelled_out(parser: AutoParser) -> None:
    # A font with ligature glyphs, as typeset regulations use; "ﬁ" as one character would
    # not match "financial" in search.
    font = Path("/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf")
    if not font.exists():
        pytest.skip("needs the Liberation fonts (Debian fonts-liberation)")
    mu = _mupdf()
    doc = mu.open()
    doc.new_page().insert_text((72, 72), "The \ufb01nancial \ufb02ows of each client "
                               "are monitored by the compliance function.",
                               fontfile=str(font), fontname="LiberationSans")
    data: bytes = doc.tobytes()
    doc.close()
    text = " ".join(parser.parse(data, "x.pdf").pages[0].text.split())
    assert "The financial flows of each client" in text
    assert not set(text) & {"\ufb01", "\ufb02"}


def test_pdf_without_title_metadata_has_no_title(parser: AutoParser) -> None:
    assert parser.parse(make_pdf(title=None), "x.pdf").title is None


def test_encrypted_pdf_is_rejected_as_password_protected(tmp_path: Path,
                                                         rejected: Rejection) -> None:
    mu = _mupdf()
    data = make_pdf(encryption=mu.PDF_ENCRYPT_AES_256, user_pw="secret", owner_pw="owner")
    path = write(tmp_path, "locked.pdf", data)
    exc = rejected(path.read_bytes(), path.name)
    assert exc.message == "the PDF is password-protected"
    assert exc.hint is not None and "remove the password" in exc.hint


def test_pdf_with_only_an_owner_password_is_readable(parser: AutoParser) -> None:
    # Permissions-only encryption opens without a password in every viewer.
    mu = _mupdf()
    data = make_pdf(encryption=mu.PDF_ENCRYPT_AES_256, user_pw="", owner_pw="owner",
                    permissions=0)
    assert "page-two sentence" in parser.parse(data, "x.pdf").pages[1].text


@pytest.mark.parametrize("keep", [0.5, 0.1])
def test_truncated_pdf_could_not_be_read(tmp_path: Path, rejected: Rejection,
                                         keep: float) -> None:
    full = make_pdf(garbage=3, deflate=True)
    path = write(tmp_path, "cut.pdf", full[: int(len(full) * keep)])
    exc = rejected(path.read_bytes(), path.name)
    assert exc.message.startswith("the file could not be read as a PDF")
    assert exc.hint == "re-export or re-download the PDF and upload it again"


def test_garbage_after_pdf_header_could_not_be_read(rejected: Rejection) -> None:
    exc = rejected(b"%PDF-1.7\n" + bytes(range(256)) * 4, "x.pdf")
    assert "could not be read as a PDF" in exc.message


def test_image_only_pdf_is_rejected_as_scanned(tmp_path: Path, rejected: Rejection) -> None:
    path = write(tmp_path, "scan.pdf", make_image_only_pdf())
    exc = rejected(path.read_bytes(), path.name)
    assert "scanned (image-only) PDF" in exc.message
    assert "OCR is not supported" in exc.message
    assert exc.hint is not None and "OCR" in exc.hint


def test_pdf_after_binary_junk_is_still_a_pdf(parser: AutoParser) -> None:
    data = b"\x00\x01junk header\x00" + make_pdf()
    assert parser.detect(data, "download.bin") == "application/pdf"
    assert parser.parse(data, "download.bin").title == "Conduct of Business"
