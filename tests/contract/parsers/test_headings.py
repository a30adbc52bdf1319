"""Headings the formats mark, read by the real parsers from real files (issue 35): Markdown
``#``, HTML ``h1``-``h6`` and DOCX heading styles, each with its level and where it starts in
the text, so chunks can be cited by their section path."""

from __future__ import annotations

import io
import json
from pathlib import Path

from regintel.adapters.parsers import AutoParser
from regintel.domain.documents import ParsedDocument
from regintel.ingestion import chunk_document
from tests.contract.parsers.files import write

GDPR = Path(__file__).resolve().parents[4] / "shared" / "data" / "regulations" / \
    "gdpr_articles.jsonl"


def gdpr_markdown(chapters: tuple[str, ...] = ("I", "II", "III")) -> str:
    """Real GDPR articles (GDPRtEXT, CC BY 4.0) as a Markdown handbook: chapters and articles
    as headings, one paragraph per line of the article."""
    out = ["# Regulation (EU) 2016/679 (GDPR)", ""]
    chapter = None
    for line in GDPR.read_text(encoding="utf-8").splitlines():
        article = json.loads(line)
        if article["chapter"] not in chapters:
            continue
        if article["chapter"] != chapter:
            chapter = article["chapter"]
            out += [f"## Chapter {chapter}", ""]
        out += [f"### Article {article['article']} {article['title']}", ""]
        out += [f"{p}\n" for p in article["text"].split("\n")]
    return "\n".join(out)


def _titles(doc: ParsedDocument) -> list[tuple[int, str]]:
    page = doc.pages[0]
    for h in page.headings:  # each offset is where its words start in the text
        assert page.text[h.offset:].lstrip("# ").startswith(h.title.split()[0]), h
    return [(h.level, h.title) for h in page.headings]


def test_markdown_headings_and_paths(tmp_path: Path, parser: AutoParser) -> None:
    text = gdpr_markdown() + "\n```bash\n# not a heading\n```\n"
    path = write(tmp_path, "gdpr.md", text.encode())
    doc = parser.parse(path.read_bytes(), path.name)
    titles = _titles(doc)
    assert titles[:3] == [(1, "Regulation (EU) 2016/679 (GDPR)"), (2, "Chapter I"),
                          (3, "Article 1 Subject-matter and objectives")]
    assert (3, "Article 17 Right to erasure (‘right to be forgotten’)") in titles
    assert all(t != "not a heading" for _, t in titles)
    chunks = chunk_document(doc)
    needle = "the erasure of personal data concerning him or her"  # Article 17(1)
    erasure = next(c for c in chunks if needle in c.text)
    at = erasure.text.index(needle)
    assert erasure.section_at(at) == ("Regulation (EU) 2016/679 (GDPR) › Chapter III › "
                                      "Article 17 Right to erasure (‘right to be forgotten’)")
    lines = erasure.lines_of(at, at + len(needle))
    assert lines is not None and lines[0] == lines[1]
    assert needle in path.read_text(encoding="utf-8").split("\n")[lines[0] - 1]


def test_html_headings_with_levels(tmp_path: Path, parser: AutoParser) -> None:
    html = """<!DOCTYPE html><html><head><title>Handbook</title></head><body>
      <nav><h2>Menu</h2></nav>
      <h1>Part 3   Governance</h1><p>Intro.</p>
      <section><h2>Chapter 14</h2>
        <h3>14.2 Internal <em>reporting</em></h3><p>Staff must report to the MLRO.</p>
      </section>
      <h2>Chapter 15</h2><p>Training is yearly.</p>
      <h4><script>x()</script></h4>
    </body></html>"""
    path = write(tmp_path, "handbook.html", html.encode())
    doc = parser.parse(path.read_bytes(), path.name)
    assert _titles(doc) == [(1, "Part 3 Governance"), (2, "Chapter 14"),
                            (3, "14.2 Internal reporting"), (2, "Chapter 15")]
    chunks = chunk_document(doc, size=60, overlap=10)
    mlro = next(c for c in chunks if "MLRO" in c.text)
    assert mlro.section_at(mlro.text.index("MLRO")) == \
        "Part 3 Governance › Chapter 14 › 14.2 Internal reporting"
    training = next(c for c in chunks if "yearly" in c.text)
    assert training.section_at(training.text.index("yearly")) == "Part 3 Governance › Chapter 15"


def test_docx_heading_styles(tmp_path: Path, parser: AutoParser) -> None:
    import docx

    document = docx.Document()
    document.add_paragraph("Falcon Bank AML Handbook", style="Title")
    document.add_heading("Part 3 Governance", level=1)
    document.add_paragraph("This part sets out who reports to whom.")
    document.add_heading("14.2 Internal reporting", level=2)
    document.add_paragraph("Staff must report suspicious activity to the MLRO at once.")
    table = document.add_table(rows=1, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Report", "Deadline"
    document.add_heading("Chapter 15 Training", level=1)
    document.add_paragraph("Training is given every year.")
    buffer = io.BytesIO()
    document.save(buffer)
    path = write(tmp_path, "handbook.docx", buffer.getvalue())
    doc = parser.parse(path.read_bytes(), path.name)
    assert not doc.paged
    assert _titles(doc) == [(1, "Part 3 Governance"), (2, "14.2 Internal reporting"),
                            (1, "Chapter 15 Training")]  # the Title style is no section
    chunks = chunk_document(doc, size=80, overlap=10)
    report = next(c for c in chunks if "MLRO" in c.text)
    assert report.section_at(report.text.index("MLRO")) == \
        "Part 3 Governance › 14.2 Internal reporting"
    assert report.line_start is not None
    text_lines = doc.pages[0].text.split("\n")
    lines = report.lines_of(report.text.index("MLRO"), report.text.index("MLRO") + 4)
    assert lines is not None and "MLRO" in text_lines[lines[0] - 1]
