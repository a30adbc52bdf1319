"""Clause markers recognised at the start of a line, and lookalikes that are not clauses."""

from __future__ import annotations

import pytest

from regintel.ingestion import find_clauses


@pytest.mark.parametrize(("line", "label"), [
    ("5.13A.5.1 An Authorised Person must", "5.13A.5.1"),
    ("1.1.\tThis Guidance is issued", "1.1"),
    ("18.8.2\tA Fund Manager", "18.8.2"),
    ("2.\tCLIENT CLASSIFICATION", "2"),
    ("2. Scope", "2"),
    ("1\tINTRODUCTION", "1"),
    ("1)\tINTRODUCTION", "1"),
    ("1.(1)\tPurpose. The purpose", "1.(1)"),
    ("2.1.3.Guidance", "2.1.3.Guidance"),
    ("2.1.3.Guidance.1\tThe Regulated Activity", "2.1.3.Guidance.1"),
    ("7.1.3.Guidance on the customer risk assessment\t",
     "7.1.3.Guidance on the customer risk assessment"),
    ("7.1.3.Guidance on high-risk customers .2.\tA Relevant Person should",
     "7.1.3.Guidance on high-risk customers .2"),
    ("Appendix A. Red flags", "Appendix A"),
    ("ANNEX 2. FORMS", "ANNEX 2"),
    ("Part 1.Chapter 1.1.(1)\tThe Regulator has", "Part 1.Chapter 1.1.(1)"),
    ("PART 5.12.12\tDelegation and outsourcing", "PART 5.12.12"),
    ("Article 6", "Article 6"),
    ("Article 6a Lawfulness of processing", "Article 6a"),
    ("Article 6(1) Processing shall be lawful", "Article 6(1)"),
    ("Rule 8.2", "Rule 8.2"),
    ("Regulation 12 - Fees", "Regulation 12"),
    ("Section 3.4 Scope", "Section 3.4"),
    ("Chapter 2: Definitions", "Chapter 2"),
    ("Part 3", "Part 3"),
    ("PART 3", "PART 3"),
    ("Schedule 1", "Schedule 1"),
    ("Annex II", "Annex II"),
    ("A.1.\tThe UAE Sustainable Finance Working Group", "A.1"),
    # As the rulebooks type some of them (issue 49): spaces before the tab, a space or no dot
    # before the guidance number, a named part, an appendix's own numbering.
    ("2.3.1.Guidance.2. \tBreaching a Principle", "2.3.1.Guidance.2"),
    ("3.3.31.(1) \tOutsourcing: An Authorised Person", "3.3.31.(1)"),
    ("8.3.2.Guidance on CDD.10. \tIn undertaking CDD", "8.3.2.Guidance on CDD.10"),
    ("21.3.4. Guidance.1.\tA Benchmark Administrator", "21.3.4.Guidance.1"),
    ("4.3.1.Guidance2.\tThe provisions in Rule", "4.3.1.Guidance2"),
    ("2.4.4.Individuals.(a)\tFor the purposes", "2.4.4.Individuals.(a)"),
    ("8.Introduction.Guidance.1.\tThis Chapter outlines", "8.Introduction.Guidance.1"),
    ("APP1\tBEST PRACTICE RELATING TO CORPORATE GOVERNANCE", "APP1"),
    ("A1.1.Guidance.3.\tRoles of the Governing Body", "A1.1.Guidance.3"),
    ("A2.1.1\tDisclosure of market data", "A2.1.1"),
    ("## Scope and purpose", "Scope and purpose"),
    ("### Article 7 Conditions for consent ###", "Article 7"),
    ("# " + "Long heading " * 10, ("Long heading " * 10)[:80].rstrip()),
])
def test_markers_and_labels(line: str, label: str) -> None:
    assert find_clauses(f"Some preamble.\n{line}\nBody text.") == [(15, label)]


@pytest.mark.parametrize("line", [
    "Rule 8.2 applies to every Authorised Person.",  # a reference, not a heading
    "Schedule 1 of FSMR sets out the activities.",
    "2019. The year the rules changed.",  # a year
    "7.1.3.Guidance on the customer risk assessment applies to every customer.",  # prose
    "100 Main Street",
    "1.5 million dirhams",
    "  see 5.13A.5.1 Above",  # not at the start of the line
    "Regulations to make provision for",
    "#hashtag",
    "2.6.Suspending Securities from the Official List",  # a title run into the number
    "APP1 applies to every Authorised Person.",
    "Q3 Results",
])
def test_lookalikes_are_not_clauses(line: str) -> None:
    assert find_clauses(f"Some preamble.\n{line}\nBody text.") == []


def test_numbers_starting_table_rows_are_cells() -> None:
    text = ("3.1\tFees\n/Table Start\nItem\tAmount\n1\t500\n2\tWaived\n/Table End\n"
            "\\Table Start\n3\tX\n\\Table End\n3.2\tRefunds\n")
    assert [label for _, label in find_clauses(text)] == ["3.1", "3.2"]


def test_offsets_point_at_the_marker() -> None:
    text = "1\tINTRODUCTION\n\n   1.1 Application\n## Part 2 Rules\n"
    for offset, label in find_clauses(text):
        assert text[offset:].lstrip("# ").startswith(label)
