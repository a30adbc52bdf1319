"""Where a citation says its quote is (issue 35): a PDF's page; a document without pages by
its clause, its heading and its lines, never a page it does not have."""

from __future__ import annotations

import pytest

from regintel.domain.chat import Citation, LineRange


def _cite(**fields: object) -> Citation:
    return Citation.model_validate({"n": 1, "title": "AML Rules", "quote": "x", **fields})


@pytest.mark.parametrize(("fields", "place"), [
    ({"page": 12, "clause": "8.1.1", "section": "8. CDD"}, "page 12 · clause 8.1.1"),
    ({"page": 3}, "page 3"),
    ({"clause": "14.2", "section": "PART 3 › Chapter 14 › 14.2 Internal reporting",
      "lines": LineRange(start=812, end=815)}, "§ 14.2 Internal reporting · lines 812–815"),
    ({"clause": "14.2.1", "section": "PART 3 › 14.2 Internal reporting",
      "lines": LineRange(start=9, end=9)}, "§ 14.2.1 · 14.2 Internal reporting · line 9"),
    ({"clause": "Article 17", "section": "GDPR › Article 17 Right to erasure"},
     "§ Article 17 Right to erasure"),
    ({"section": "Overview › Reporting", "lines": LineRange(start=4, end=6)},
     "§ Reporting · lines 4–6"),
    ({"clause": "4.5"}, "§ 4.5"),  # stored before sections and lines were recorded
    ({}, ""),
])
def test_location(fields: dict[str, object], place: str) -> None:
    assert _cite(**fields).location == place
