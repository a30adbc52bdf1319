"""Section paths and line ranges recorded at chunking (issue 35): the headings above each
chunk, their changes inside it, and for documents without pages the lines each chunk spans."""

from __future__ import annotations

import pytest

from regintel.domain.documents import ChunkDraft, ParsedDocument, ParsedHeading, ParsedPage
from regintel.ingestion import chunk_document
from regintel.ingestion.sections import text_headings

RULE = ("A Relevant Person must report any suspicious transaction to its MLRO without delay "
        "and in any event within two business days of the employee becoming aware of it. ")

HANDBOOK = "\n".join([
    "PART 3",
    "GOVERNANCE AND REPORTING",
    "",
    "Chapter 14",
    "",
    "14.1\tInternal controls",
    "14.1.1\t" + RULE * 3,
    "14.2\tInternal reporting",
    "14.2.1\t" + RULE * 2,
    "14.2.2\tThe MLRO must keep a record of each report.",
    "Article 6",
    "Lawfulness of processing",
    "1. Processing shall be lawful only if and to the extent that at least one applies.",
    "Chapter 15",
    "15.1\tTraining",
    "15.1.1\tStaff must be trained every year.",
])


def _path_at(chunks: list[ChunkDraft], needle: str) -> str | None:
    chunk = next(c for c in chunks if needle in c.text)
    return chunk.section_at(chunk.text.index(needle))


def test_numbered_and_keyword_headings_make_a_path() -> None:
    found = [(h.level, h.title) for h in text_headings(HANDBOOK)]
    assert found == [
        (1, "PART 3 GOVERNANCE AND REPORTING"),  # the keyword line takes its title line
        (2, "Chapter 14"),
        (6, "14.1 Internal controls"),
        (6, "14.2 Internal reporting"),
        (4, "Article 6 Lawfulness of processing"),
        (2, "Chapter 15"),
        (6, "15.1 Training"),
    ]  # rules ("14.2.1 A Relevant Person must …", "1. Processing shall …") are no headings


def test_each_quote_gets_the_path_it_sits_under() -> None:
    doc = ParsedDocument(mime_type="text/plain", pages=(ParsedPage(number=1, text=HANDBOOK),))
    chunks = chunk_document(doc, size=400, overlap=60)
    assert _path_at(chunks, "The MLRO must keep a record") == \
        "PART 3 GOVERNANCE AND REPORTING › Chapter 14 › 14.2 Internal reporting"
    assert _path_at(chunks, "Staff must be trained") == \
        "PART 3 GOVERNANCE AND REPORTING › Chapter 15 › 15.1 Training"
    assert _path_at(chunks, "1. Processing shall be lawful") == \
        "PART 3 GOVERNANCE AND REPORTING › Chapter 14 › Article 6 Lawfulness of processing"
    # A chunk that starts in one section and runs into the next records where it changes.
    crossing = [c for c in chunks if c.section_changes]
    assert crossing
    for c in crossing:
        for offset, path in c.section_changes:
            assert 0 < offset < len(c.text) and path.split(" › ")[-1].split()[0] in \
                c.text[offset:offset + 40]


def test_lines_count_the_whole_text_across_form_feeds() -> None:
    first = "Intro line one.\nIntro line two.\n"
    text = first + "\f" + HANDBOOK
    doc = ParsedDocument(mime_type="text/plain", pages=(
        ParsedPage(number=1, text=first), ParsedPage(number=2, text=HANDBOOK)))
    assert not doc.paged
    file_lines = text.split("\n")
    for c in chunk_document(doc, size=300, overlap=50):
        assert c.line_start is not None and c.line_end is not None
        held = "\n".join(file_lines[c.line_start - 1:c.line_end]).replace("\f", "")
        assert c.text in held
        # No wider than the chunk: its first and last lines hold its first and last words.
        assert c.text.split()[0] in file_lines[c.line_start - 1]
        assert c.text.split()[-1] in file_lines[c.line_end - 1]
        for start in range(0, len(c.text), 97):
            end = min(len(c.text), start + 60)
            lines = c.lines_of(start, end)
            assert lines is not None
            assert c.text[start:end].strip() in "\n".join(file_lines[lines[0] - 1:lines[1]])


def test_pages_are_the_reference_in_a_pdf() -> None:
    doc = ParsedDocument(mime_type="application/pdf", pages=(
        ParsedPage(number=1, text=HANDBOOK), ParsedPage(number=2, text="15.2\tRecords\n"
                                                                       "Keep them.")))
    chunks = chunk_document(doc, size=400, overlap=60)
    assert doc.paged and all(c.line_start is None and c.line_end is None for c in chunks)
    # Sections still run on across pages.
    assert chunks[-1].page_start == 2
    assert chunks[-1].section_at(0) is not None and \
        chunks[-1].section_at(len(chunks[-1].text)) == \
        "PART 3 GOVERNANCE AND REPORTING › Chapter 15 › 15.2 Records"


def test_headings_the_format_marks_win_over_numbered_lines() -> None:
    text = "Overview\n\n1. Scope\nApplies to all staff.\n\nDetails\n\nStaff must report."
    page = ParsedPage(number=1, text=text, headings=(
        ParsedHeading(offset=0, level=1, title="Overview"),
        ParsedHeading(offset=text.index("Details"), level=2, title="Details")))
    chunks = chunk_document(ParsedDocument(mime_type="text/html", pages=(page,)))
    assert _path_at(chunks, "Applies to all") == "Overview"  # "1. Scope" is list text here
    assert _path_at(chunks, "Staff must report") == "Overview › Details"


@pytest.mark.parametrize("line", [
    "14.2.1\tA firm must report to the MLRO.",  # a rule
    "14.2\tthe firm reports",  # lower case: a sentence
    "14.2\tInternal reporting of suspicious transactions by employees of a firm to the MLRO "
    "and onwards",  # too long for a title
    "3\tRecords",  # a bare number needs a tab and a title... and has them
])
def test_a_heading_line_is_a_number_and_a_title(line: str) -> None:
    found = text_headings(f"Intro.\n{line}\nThe next line.")
    assert [h.title for h in found] == (["3 Records"] if line.startswith("3\t") else [])
