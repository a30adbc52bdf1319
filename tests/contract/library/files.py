"""Real documents the library tests make: a multi-page PDF, a DOCX, HTML, Markdown and text."""

from __future__ import annotations

from pathlib import Path

PDF_PAGES = (
    "1. INTRODUCTION\n1.1 These Rules apply to every Authorised Person in the ADGM.\n"
    "1.2 An Authorised Person must read these Rules with the Glossary.",
    "5.13A.5.1 A Relevant Person must undertake Customer Due Diligence before establishing a "
    "Business Relationship.\n5.13A.5.2 Enhanced Due Diligence must be applied to every "
    "Politically Exposed Person.",
    "Article 6 Lawfulness of processing\nProcessing shall be lawful only if the data subject "
    "has given consent to the processing of his or her personal data.",
)


def make_pdf(path: Path, pages: tuple[str, ...] = PDF_PAGES, title: str = "Test Rules") -> Path:
    import pymupdf

    doc = pymupdf.open()
    for body in pages:
        page = doc.new_page()
        page.insert_textbox(pymupdf.Rect(50, 50, 550, 800), body, fontsize=11)
    doc.set_metadata({"title": title})
    doc.save(path)
    doc.close()
    return path


def make_docx(path: Path) -> Path:
    import docx

    document = docx.Document()
    document.add_heading("Rule 8.2 Record keeping", level=1)
    document.add_paragraph("A firm must keep records of every Transaction for at least six "
                           "years from the date of the Transaction.")
    document.add_heading("Rule 8.3 Reporting", level=1)
    document.add_paragraph("A firm must report a suspicious Transaction to the FIU without delay.")
    document.save(str(path))
    return path


def make_html(path: Path) -> Path:
    path.write_text(
        "<!doctype html><html><head><title>Sanctions Notice</title><style>p{}</style></head>"
        "<body><nav>Home | About</nav><h2>Article 12 Screening</h2><p>A Relevant Person must "
        "screen customers against the sanctions lists.</p><script>alert(1)</script></body></html>",
        encoding="utf-8")
    return path


def make_markdown(path: Path) -> Path:
    intro = " ".join(["This policy sets out how the firm selects and supervises its service "
                      "providers."] * 11)
    path.write_text(f"# Outsourcing Policy\n\n{intro}\n\n## Section 3.4 Oversight\n\nThe Board "
                    "shall approve every material outsourcing arrangement before it starts.\n",
                    encoding="utf-8")
    return path


def make_text(path: Path, body: str | None = None) -> Path:
    path.write_text(body or "Rule 2.1 A Fund Manager must value the Fund's assets at least "
                            "monthly.\n\\Table Start\nAsset\tFrequency\n\\Table End\n",
                    encoding="utf-8")
    return path
