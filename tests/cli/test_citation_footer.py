"""``regintel ask`` lists each citation where a reader finds it (issue 35): a PDF's page, a
text document's clause, heading and lines, never "p. 1"."""

from __future__ import annotations

import uuid

import pytest

from regintel.cli.chat import _print_footer
from regintel.domain.chat import ChatResponse, Citation, LineRange


def test_footer_names_pages_for_pdfs_and_lines_for_text(
        capsys: pytest.CaptureFixture[str]) -> None:
    response = ChatResponse(thread_id=uuid.uuid4(), answer="See [1] and [2].", citations=[
        Citation(n=1, title="AML Rules", version="VER09", clause="14.2",
                 section="PART 3 › Chapter 14 › 14.2 Internal reporting",
                 lines=LineRange(start=812, end=815), quote="Staff must report."),
        Citation(n=2, title="Falcon Policy", page=4, clause="3.1", quote="We report."),
    ])
    _print_footer(response)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == ('[1] AML Rules (VER09, § 14.2 Internal reporting · lines 812–815): '
                      '"Staff must report."')
    assert out[1] == '[2] Falcon Policy (page 4 · clause 3.1): "We report."'
