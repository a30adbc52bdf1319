"""The change report: editorial vs substantive, typed summaries, the redline and the JSON the
``regintel changes`` command prints."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

import regintel.cli.changes  # noqa: F401  (registers `regintel changes` on the app)
from regintel.changes.redline import editorial_kind, redline_ops, redline_text
from regintel.changes.report import compare_texts
from regintel.changes.summary import facts_changed
from regintel.cli.app import app

OLD = """PART 7—RECORDS

§ 7.1 Keeping records.

(a) Records should be kept for five years from the date of the transaction.
(b) The report is due within 30 days after the end of the quarter.
(c) See § 7.4 and paragraph (b) of this section.
(d) A licensee shall  keep the register at its premises.
"""
NEW = """PART 7—RECORDS

§ 7.1 Keeping records.

(a) Records must be kept for six years from the date of the transaction.
(b) The report is due within 10 days after the end of the quarter.
(c) See § 7.5 and paragraph (a) of this section.
(d) A licensee shall keep the register at its premises.
(e) The register must be approved by the compliance officer.
"""


def _by_label(label: str) -> dict[str, object]:
    report = compare_texts(OLD, NEW)
    return next(c.model_dump() for c in report.changes if c.new_provision == label)


def test_editorial_kinds() -> None:
    assert editorial_kind("shall  keep", "shall keep") == "spacing"
    assert editorial_kind("denial.The request", "denial. The request") == "spacing"
    assert editorial_kind("the firm, and", "the firm and") == "punctuation"
    assert editorial_kind("18 U.S.C. 922, Appendix A", "18 U.S.C. 922, appendix A") == \
        "capitalisation"
    assert editorial_kind("required by § 478.124(c)", "required by § 478.125(c)") == \
        "cross-reference"
    assert editorial_kind("in sections 5 and 6", "in sections 5 and 7") == "cross-reference"
    assert editorial_kind("within 5 and 10 days", "within 5 and 15 days") is None
    assert editorial_kind("kept for five years", "kept for six years") is None


def test_spacing_and_a_renumbered_reference_are_editorial() -> None:
    spacing = _by_label("7.1(d)")
    assert spacing["kind"] == "amended" and not spacing["substantive"]
    assert spacing["editorial"] == "spacing"
    assert spacing["old_quote"] == "(d) A licensee shall  keep the register at its premises."
    reference = _by_label("7.1(c)")
    assert not reference["substantive"] and reference["editorial"] == "cross-reference"


def test_typed_summaries() -> None:
    period = _by_label("7.1(a)")
    assert period["substantive"] and period["kind"] == "amended"
    assert "must now be kept for six years, not five" in str(period["summary"])
    assert "“should” became “must”" in str(period["summary"])
    kinds = {(f["kind"], f["change"]) for f in period["facts_changed"]}  # type: ignore[attr-defined]
    assert {("period", "changed"), ("force", "changed")} <= kinds
    deadline = _by_label("7.1(b)")
    assert "due within 10 days, not 30" in str(deadline["summary"])
    approver = _by_label("7.1(e)")
    assert approver["kind"] == "inserted" and approver["old_provision"] is None
    assert "adds an approver" in str(approver["summary"])


def test_facts_read_by_the_obligation_reader() -> None:
    [fact] = facts_changed("Files are kept for 3 years.", "Files are kept for 5 years.")
    assert (fact.kind, fact.old, fact.new, fact.old_value, fact.new_value) == (
        "period", "3 years", "5 years", 1095.0, 1825.0)
    assert facts_changed("It is kept for five years.", "It is kept for five years, as now.") \
        == []


def test_redline() -> None:
    ops = redline_ops("kept for five years.", "kept for six years.")
    assert redline_text(ops) == "kept for [-five-]{+six+} years."


def test_json_of_the_command(tmp_path: Path) -> None:
    (tmp_path / "old.txt").write_text(OLD, encoding="utf-8")
    (tmp_path / "new.txt").write_text(NEW, encoding="utf-8")
    result = CliRunner().invoke(app, ["changes", str(tmp_path / "old.txt"),
                                      str(tmp_path / "new.txt"), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert len(report["changes"]) == 5
    for change in report["changes"]:
        assert {"old_provision", "new_provision", "kind", "substantive", "summary",
                "facts_changed", "old_quote", "new_quote", "redline"} <= set(change)
        assert isinstance(change["substantive"], bool)
        assert isinstance(change["facts_changed"], list)
    assert {e["label"] for e in report["toc"]} == {"PART 7", "§ 7.1"}
    assert report["toc"][1]["changes"] == 5 and report["counts"]["editorial"] == 2
    table = CliRunner().invoke(app, ["changes", str(tmp_path / "old.txt"),
                                     str(tmp_path / "new.txt"), "--substantive"])
    assert table.exit_code == 0 and "7.1(a)" in table.output and "7.1(d)" not in table.output
