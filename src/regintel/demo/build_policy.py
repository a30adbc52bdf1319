"""Render the demo company policy (``aml_policy.md``) to the PDF that ships in ``data/``.

``python -m regintel.demo.build_policy`` rewrites ``data/falcon_crest_aml_policy.pdf``. The
output is byte-for-byte reproducible (fixed metadata, no new file id), so rebuilding an
unchanged source leaves the file - and its content hash, which ingestion dedupes on - as is.
The source uses a small Markdown subset, converted here so the PDF keeps clause numbers at the
start of lines, which is where the chunker finds them. ``render`` takes a ``Letterhead`` so
that other sample policies (the audit's development policies,
research/audit_dev/dev_policies.py) are set the same way.
"""

from __future__ import annotations

import html
import io
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SOURCE = Path(__file__).with_name("aml_policy.md")
OUTPUT = Path(__file__).with_name("data") / "falcon_crest_aml_policy.pdf"
TITLE = "Falcon Crest Capital Ltd — Anti-Money Laundering and Counter-Terrorist Financing Policy"
FOOTER = "Falcon Crest Capital Ltd · AML/CFT Policy · Version 2026.1 · Internal"
FIXED_DATE = "D:20260122090000+04'00'"


@dataclass(frozen=True)
class Letterhead:
    """What a rendered policy says about itself: its metadata and page footer."""

    title: str
    author: str
    subject: str
    footer: str
    date: str = FIXED_DATE


FALCON_CREST = Letterhead(TITLE, "Falcon Crest Capital Ltd", "AML/CFT Policy, version 2026.1",
                          FOOTER)

CSS = """
body { font-family: sans-serif; font-size: 10.5pt; line-height: 1.35; }
h1 { font-size: 24pt; text-align: center; margin-top: 150pt; }
h2 { font-size: 13pt; margin-top: 14pt; margin-bottom: 4pt; }
h2.cover { font-size: 16pt; text-align: center; margin-bottom: 40pt; }
p.cover { text-align: center; font-size: 11pt; }
h3 { font-size: 11pt; margin-top: 10pt; }
p { margin-top: 3pt; margin-bottom: 3pt; text-align: justify; }
p.item { margin-left: 22pt; }
li { margin-bottom: 2pt; }
table { border-collapse: collapse; margin-top: 6pt; }
th, td { border: 0.5pt solid #555; padding: 3pt; font-size: 9pt; vertical-align: top; }
th { background-color: #e4e8ee; }
"""

_CLAUSE = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){1,2}) (.*)$", re.DOTALL)
_ITEM = re.compile(r"^\([a-z]{1,3}\) ")
_LIGATURE = re.compile(r"(?<=f)([fil])")
_MARKS = re.compile(r"\s*\{(page|cover)\}\s*$")


def _esc(text: str) -> str:
    """Escaped for HTML, with "f" ligatures (ff, fi, fl, ffi) prevented: the layout engine
    shapes each span separately, so wrapping the second letter keeps it a separate glyph
    and the PDF's text layer reads "financing", not "\ufb01nancing"."""
    return _LIGATURE.sub(r"<span>\1</span>", html.escape(text, quote=False))


def _heading(level: int, text: str) -> str:
    marks = set(_MARKS.findall(text))
    text = _MARKS.sub("", text)
    style = ' style="page-break-before: always"' if "page" in marks else ""
    cls = ' class="cover"' if "cover" in marks else ""
    return f"<h{level}{cls}{style}>{_esc(text)}</h{level}>"


def _table(rows: list[str]) -> str:
    cells = [[c.strip() for c in row.strip().strip("|").split("|")] for row in rows]
    head, body = cells[0], [r for r in cells[1:] if not all(set(c) <= {"-"} for c in r)]
    out = ["<table>", "<tr>" + "".join(f"<th>{_esc(c)}</th>" for c in head) + "</tr>"]
    out += ["<tr>" + "".join(f"<td>{_esc(c)}</td>" for c in r) + "</tr>" for r in body]
    return "\n".join([*out, "</table>"])


def to_html(markdown: str) -> str:
    """The policy's Markdown subset as HTML: headings, numbered clauses, (a) items, bullets,
    tables and paragraphs (blank-line separated)."""
    markdown = re.sub(r"<!--.*?-->", "", markdown, flags=re.DOTALL)
    parts: list[str] = []
    on_cover = True
    for block in re.split(r"\n\s*\n", markdown.strip()):
        lines = [line.rstrip() for line in block.strip().splitlines()]
        first = lines[0]
        if first.startswith("#"):
            level = len(first) - len(first.lstrip("#"))
            text = first[level:].strip()
            if "{page}" in text:
                on_cover = False
            parts.append(_heading(level, text))
        elif first.startswith("|"):
            parts.append(_table(lines))
        elif first.startswith("- "):
            items = "".join(f"<li>{_esc(line[2:])}</li>" for line in lines)
            parts.append(f"<ul>{items}</ul>")
        else:
            text = " ".join(lines)
            if m := _CLAUSE.match(text):
                parts.append(f"<p><b>{m[1]}</b> {_esc(m[2])}</p>")
            elif _ITEM.match(text):
                parts.append(f'<p class="item">{_esc(text)}</p>')
            elif on_cover:
                parts.append(f'<p class="cover">{_esc(text)}</p>')
            else:
                parts.append(f"<p>{_esc(text)}</p>")
    return "\n".join(parts)


def render(markdown: str, letterhead: Letterhead = FALCON_CREST) -> bytes:
    """The PDF bytes: A4 pages, a footer with page numbers, fixed metadata."""
    import pymupdf as _pymupdf

    pymupdf: Any = _pymupdf  # partial vendor annotations; see adapters/parsers/pdf.py
    story = pymupdf.Story(html=to_html(markdown), user_css=CSS)
    mediabox = pymupdf.paper_rect("a4")
    where = pymupdf.Rect(62, 56, mediabox.width - 62, mediabox.height - 64)
    sink = io.BytesIO()
    buffer = pymupdf.DocumentWriter(sink)
    more = True
    while more:
        device = buffer.begin_page(mediabox)
        more, _ = story.place(where)
        story.draw(device)
        buffer.end_page()
    buffer.close()
    doc = pymupdf.open(stream=sink.getvalue(), filetype="pdf")
    total = doc.page_count
    for number, page in enumerate(doc, start=1):
        if number == 1:
            continue  # no footer on the cover
        y = mediabox.height - 36
        page.insert_text((62, y), letterhead.footer, fontsize=7.5, fontname="helv",
                         color=(0.35,) * 3)
        label = f"Page {number} of {total}"
        x = mediabox.width - 62 - pymupdf.get_text_length(label, fontname="helv", fontsize=7.5)
        page.insert_text((x, y), label, fontsize=7.5, fontname="helv", color=(0.35,) * 3)
    doc.set_metadata({"title": letterhead.title, "author": letterhead.author,
                      "subject": letterhead.subject, "creator": "regintel demo",
                      "producer": "PyMuPDF", "creationDate": letterhead.date,
                      "modDate": letterhead.date})
    data: bytes = doc.tobytes(garbage=4, deflate=True, no_new_id=True)
    doc.close()
    return data


def main() -> None:
    data = render(SOURCE.read_text(encoding="utf-8"))
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_bytes(data)
    print(f"wrote {OUTPUT} ({len(data):,} bytes)")


if __name__ == "__main__":
    main()
