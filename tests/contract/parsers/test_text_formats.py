"""HTML, Markdown and plain text, and the rejections decided by sniffing the content."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest

from regintel.adapters.parsers import SUPPORTED, AutoParser
from tests.contract.parsers.files import Rejection, write

HTML = """<!DOCTYPE html>
<html><head><title>  Virtual Asset
  Guidance </title><style>p { color: red }</style><script>var secret = "x";</script></head>
<body>
  <nav><a href="/">Home</a> | <a href="/about">About</a></nav>
  <h1>Article 6   Lawfulness</h1>
  <p>Processing is lawful only if:<br>(a) the data subject has given consent;</p>
  <script>document.write("tracking")</script>
  <ul><li>first item</li><li>second item</li></ul>
  <table><tr><th>Term</th><th>Meaning</th></tr>
         <tr><td> ADGM </td><td>Abu Dhabi <b>Global</b> Market</td></tr></table>
  <!-- a comment -->
  <div>Fees &amp; charges apply.</div>
</body></html>"""

MARKDOWN = """Preamble line.

# Data Protection Policy

## Article 5 Principles
Personal data shall be processed lawfully.

```bash
# not a title
```
"""


def png() -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body)))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(b"\x00\x00")) + chunk(b"IEND", b""))


def test_html_keeps_visible_text_with_block_structure(tmp_path: Path,
                                                      parser: AutoParser) -> None:
    path = write(tmp_path, "guidance.html", HTML.encode())
    doc = parser.parse(path.read_bytes(), path.name)
    assert doc.mime_type == "text/html"
    assert doc.title == "Virtual Asset Guidance"
    assert doc.pages[0].text == (
        "Article 6 Lawfulness\n\n"
        "Processing is lawful only if:\n(a) the data subject has given consent;\n\n"
        "first item\nsecond item\n\n"
        "Term\tMeaning\nADGM\tAbu Dhabi Global Market\n\n"
        "Fees & charges apply."
    )


def test_html_is_detected_by_content_or_by_extension_with_markup(parser: AutoParser) -> None:
    assert parser.detect(b"\xef\xbb\xbf  <html><body>Hi</body></html>", "page.txt") == "text/html"
    assert parser.detect(b"<p>Just a fragment</p>", "fragment.htm") == "text/html"
    assert parser.detect(b"<p>Just a fragment</p>", "fragment.txt") == "text/plain"


def test_html_in_a_declared_legacy_charset_is_decoded(parser: AutoParser) -> None:
    data = '<html><head><meta charset="windows-1252"></head><p>caf\xe9 \u2013 10\u20ac</p>'
    doc = parser.parse(data.encode("cp1252"), "page.html")
    assert doc.pages[0].text == "caf\xe9 \u2013 10\u20ac"


def test_markdown_keeps_headings_as_lines(tmp_path: Path, parser: AutoParser) -> None:
    path = write(tmp_path, "policy.md", MARKDOWN.encode())
    doc = parser.parse(path.read_bytes(), path.name)
    assert doc.mime_type == "text/markdown"
    assert doc.title == "Data Protection Policy"
    assert doc.pages[0].text == MARKDOWN
    assert parser.parse(b"no heading\n```\n# code\n```\n", "x.markdown").title is None
    assert parser.parse(b"#\n# Real title #\n", "x.md").title == "Real title"


def test_text_with_bom_crlf_and_form_feeds_splits_pages(tmp_path: Path,
                                                        parser: AutoParser) -> None:
    body = "1.\tSCOPE\r\nPage one.\fPage two,\ttabbed.\r\n\\Table Start\r\na\tb\r\n\\Table End\f"
    path = write(tmp_path, "rules.txt", b"\xef\xbb\xbf" + body.encode())
    doc = parser.parse(path.read_bytes(), path.name)
    assert doc.mime_type == "text/plain"
    assert doc.title is None
    assert [(p.number, p.text) for p in doc.pages] == [
        (1, "1.\tSCOPE\nPage one."),
        (2, "Page two,\ttabbed.\n\\Table Start\na\tb\n\\Table End"),
    ]


def test_text_without_form_feeds_is_one_page(parser: AutoParser) -> None:
    doc = parser.parse("Règle 1 – “quoted”.\n".encode(), "notes")
    assert [(p.number, p.text) for p in doc.pages] == [(1, "Règle 1 – “quoted”.\n")]


def test_latin1_text_is_rejected_not_guessed(tmp_path: Path, rejected: Rejection,
                                             parser: AutoParser) -> None:
    path = write(tmp_path, "legacy.txt", "Règle générale".encode("latin-1"))
    exc = rejected(path.read_bytes(), path.name)
    assert exc.message == "the file is not UTF-8 text: invalid byte 0xe8 at offset 1"
    assert exc.hint == "re-save it with the UTF-8 encoding and upload it again"
    with pytest.raises(type(exc), match="not UTF-8 text"):
        parser.detect(path.read_bytes(), path.name)


def test_utf16_text_is_rejected_as_not_utf8(rejected: Rejection) -> None:
    data = "Rule 1".encode("utf-16")
    assert rejected(data, "x.txt").message == "the file is not UTF-8 text: it is UTF-16"


@pytest.mark.parametrize("data", [b"", b"   \n\t\r\n", b"\xef\xbb\xbf\n",
                                  "\u00a0\u2003\n".encode(), b"<html><script>x</script></html>"])
def test_empty_files_are_rejected(tmp_path: Path, rejected: Rejection, data: bytes) -> None:
    path = write(tmp_path, "empty.txt", data)
    exc = rejected(path.read_bytes(), path.name)
    assert exc.message == "the file is empty"
    assert exc.hint == "upload a file that contains text"


def test_png_named_pdf_is_rejected_as_an_image(tmp_path: Path, rejected: Rejection,
                                               parser: AutoParser) -> None:
    path = write(tmp_path, "scan.pdf", png())
    exc = rejected(path.read_bytes(), path.name)
    assert exc.message == "unsupported file type: it looks like a PNG image"
    assert exc.hint == f"supported types: {', '.join(SUPPORTED)}"
    with pytest.raises(type(exc), match="PNG image"):
        parser.detect(path.read_bytes(), path.name)


@pytest.mark.parametrize(("data", "looks_like"), [
    (b"\x7fELF\x02\x01\x01" + bytes(64), "a Linux executable"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(64),
     "a legacy or password-protected Microsoft Office file (.doc/.xls/.ppt)"),
    (b"\xff\xd8\xff\xe0" + bytes(64), "a JPEG image"),
    (b"text then \x00 binary", "a binary file"),
])
def test_binary_files_are_named(rejected: Rejection, data: bytes, looks_like: str) -> None:
    exc = rejected(data, "policy.txt")
    assert exc.message == f"unsupported file type: it looks like {looks_like}"


def test_supported_types_constant() -> None:
    assert SUPPORTED == ("PDF", "DOCX", "HTML", "Markdown", "plain text")


def test_text_that_mentions_the_pdf_header_is_still_text(parser: AutoParser) -> None:
    assert parser.detect(b"Files start with %PDF-1.7 as their header.", "notes.md") == (
        "text/markdown")
