"""Reading a version into provisions: sections, divisions, nested labels as the document
writes them, unlabelled paragraphs keyed by their first words."""

from __future__ import annotations

from regintel.changes.labels import choose, readings
from regintel.changes.provisions import Version, comparable, first_words, read_version

TEXT = """PART 9—SAMPLE RULES

Subpart A—General

§ 9.1 Scope.

These rules apply to every firm.

§ 9.2 Records.

(a) A firm must keep records.
(1) Of each sale;
(2) Of each refund, including—
(i) The amount; and
(ii) The date.
(b) Keeping. Records must be kept for five years.
(c) Exceptions. This section does not apply to—
(1) Gifts;
(h) Held records.
(i) Items listed in paragraph (h).
(j) Other items.
(k)-(l) [Reserved]
(m) Last.

Subpart B—Definitions

§ 9.11 Meaning of terms.

When used in this part, terms have these meanings.
Act. The Sample Act.
Customer.
(a) A person who buys; or
(b) A person who is offered a product.
Firm. A person licensed under this part.
"""


def _labels(version: Version, section: str) -> list[str]:
    unit = next(u for u in version.units if u.label == section)
    return [p.label for p in unit.paragraphs]


def test_sections_divisions_and_nested_labels() -> None:
    version = read_version(TEXT)
    assert [u.label for u in version.sections] == ["§ 9.1", "§ 9.2", "§ 9.11"]
    section = next(u for u in version.units if u.label == "§ 9.2")
    assert section.heading == "Records." and section.divisions == ("PART 9", "Subpart A")
    assert _labels(version, "§ 9.2") == [
        "9.2(a)", "9.2(a)(1)", "9.2(a)(2)", "9.2(a)(2)(i)", "9.2(a)(2)(ii)", "9.2(b)", "9.2(c)",
        "9.2(c)(1)", "9.2(h)", "9.2(i)", "9.2(j)", "9.2(k)-(l)", "9.2(m)"]
    first = section.paragraphs[0]
    assert first.marker == "(a)" and first.body == "A firm must keep records." and \
        first.text == "(a) A firm must keep records."


def test_roman_or_letter_decided_by_the_next_marker() -> None:
    # "(i)" after "(h)" is a roman numeral when "(ii)" follows, the next letter when "(j)" does.
    h_stack = [choose([], "h", "(h)", None).level]
    assert choose(h_stack, "i", "(i)", "ii").depth == 1
    assert choose(h_stack, "i", "(i)", "j").depth == 0
    assert [r.kind for r in readings("ii")] == ["roman", "lower"]
    assert [r.kind for r in readings("I")] == ["upper", "uroman"]


def test_unlabelled_paragraphs_keyed_by_their_first_words() -> None:
    version = read_version(TEXT)
    assert _labels(version, "§ 9.11") == [
        "9.11 ¶ When used in this part, terms have these meanings", "9.11 ¶ Act", "9.11 ¶ Customer",
        "9.11 ¶ Customer (a)", "9.11 ¶ Customer (b)", "9.11 ¶ Firm"]
    assert _labels(version, "§ 9.1") == ["9.1 ¶ These rules apply to every firm"]
    assert first_words("Alien illegally or unlawfully in the United States. Aliens who …") == \
        "Alien illegally or unlawfully in the United States"


def test_a_table_after_as_follows_belongs_to_that_paragraph() -> None:
    version = read_version("§ 4.2 Forms.\n\n(a) The record is as follows:\n|Name|Date|\n"
                           "|---|---|\n||\n(b) Keep it.\n")
    assert _labels(version, "§ 4.2") == ["4.2(a)", "4.2(a) ¶ Name Date", "4.2(b)"]
    table = version.sections[0].paragraphs[1]
    assert table.text.count("\n") == 2  # the three rows are one paragraph


def test_articles_and_a_quoted_list_inside_a_section() -> None:
    version = read_version("Article 5 Obligations\n\n1. The firm shall report.\n"
                           "2. The report shall be filed.\n(a) by email;\n(b) by post.\n"
                           "Article 6 Fees\n\nNo fee is due.\n")
    assert _labels(version, "Article 5") == ["Article 5(1)", "Article 5(2)", "Article 5(2)(a)",
                                             "Article 5(2)(b)"]
    assert _labels(version, "Article 6") == ["Article 6 ¶ No fee is due"]


def test_the_real_part_reads_into_its_sections(part_478: str) -> None:
    version = read_version(part_478)
    labels = {p.label for u in version.units for p in u.paragraphs}
    assert len(version.sections) > 100
    assert {"478.124(c)(1)", "478.11 ¶ Alien", "478.11 ¶ Adjudicated as a mental defective (a)(1)",
            "478.103(e)(4)"} <= labels
    # a thin space is the same text as a space; a doubled space is not
    assert comparable("§\u2009478.1") == comparable("§ 478.1") != comparable("§  478.1")
