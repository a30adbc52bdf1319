"""The inputs of ``regintel bench audit --policy/--policies``: which policies a directory
holds (held-out ones skipped unless asked), how a regulation file is uploaded (JSON lines of
articles become Markdown with an article heading each), and the pooled figures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from regintel.bench.audit_policies import (
    cases_in,
    policy_upload,
    pooled,
    read_gaps,
    regulation_upload,
)
from regintel.errors import InvalidRequest
from regintel.ingestion import find_clauses


def _write_case(directory: Path, name: str) -> None:
    (directory / f"{name}_policy.md").write_text(f"# {name.title()} Ltd — Policy\n\nText.\n",
                                                 encoding="utf-8")
    (directory / f"{name}_gaps.json").write_text("[]", encoding="utf-8")


def test_cases_skip_held_out_and_policies_without_gaps(tmp_path: Path) -> None:
    reg = tmp_path / "reg"
    reg.mkdir()
    for name in ("alpha", "beta", "gamma"):
        _write_case(reg, name)
    (reg / "delta_policy.md").write_text("# Delta\n", encoding="utf-8")  # no gap file
    (tmp_path / "held_out.txt").write_text("reg/gamma\n", encoding="utf-8")
    assert [c.name for c in cases_in(reg)] == ["alpha", "beta"]
    every = cases_in(reg, include_held_out=True)
    assert [(c.name, c.held_out) for c in every] == [
        ("alpha", False), ("beta", False), ("gamma", True)]


def test_a_directory_without_cases_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InvalidRequest, match="no policy with its gap file"):
        cases_in(tmp_path)


def test_policy_title_is_its_heading(tmp_path: Path) -> None:
    _write_case(tmp_path, "alpha")
    upload = policy_upload(tmp_path / "alpha_policy.md")
    assert upload.title == "Alpha Ltd — Policy"
    assert upload.filename == "alpha_policy.md"


def test_jsonl_articles_become_markdown_with_article_clauses(tmp_path: Path) -> None:
    rows = [{"chapter": "I", "article": "2", "title": "Scope", "text": "It applies.\nTo all."},
            {"chapter": "I", "article": "1", "title": "Subject", "text": "Firms shall act."}]
    path = tmp_path / "act.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    upload = regulation_upload(path)
    text = upload.data.decode("utf-8")
    assert upload.filename == "act.md"
    assert text.index("## Article 1 Subject") < text.index("## Article 2 Scope")
    assert [label for _, label in find_clauses(text) if label.startswith("Article")] == [
        "Article 1", "Article 2"]
    assert "\nTo all.\n" in text


def test_jsonl_without_articles_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_text(json.dumps({"text": "no article number"}), encoding="utf-8")
    with pytest.raises(InvalidRequest, match="not JSON lines of articles"):
        regulation_upload(path)


def test_pooled_counts_gaps_and_findings_together() -> None:
    rows = [{"gaps": 8, "found": 4, "findings": 10, "matching_findings": 5, "surfaced": 6,
             "queue": 40, "quotes_fabricated": 0, "seconds": 2.0},
            {"gaps": 2, "found": 2, "findings": 10, "matching_findings": 1, "surfaced": 2,
             "queue": 10, "quotes_fabricated": 1, "seconds": 3.0}]
    figures = pooled(rows)
    assert (figures["recall"], figures["precision"]) == (0.6, 0.3)
    assert (figures["finding_precision"], figures["surfaced_share"]) == (0.3, 0.8)
    assert figures["quotes_fabricated"] == 1 and figures["queue"] == 50


@pytest.mark.parametrize(("content", "error"), [
    ("not json", "not a readable gap file"),
    ("[]", "holds no planted gaps"),
    ('[{"id": "X1", "kind": "missing", "rule": "1.1"}]', "X1 lacks match_terms"),
    ('[{"id": "X2", "kind": "typo", "rule": "1", "obligation": "", "policy_clause": null, '
     '"policy_text": null, "match_terms": []}]', "X2 lacks a kind"),
])
def test_a_bad_gap_file_is_a_clear_error(tmp_path: Path, content: str, error: str) -> None:
    path = tmp_path / "bad_gaps.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InvalidRequest, match=error):
        read_gaps(path)


def test_the_development_gap_files_read() -> None:
    directory = Path(__file__).resolve().parents[2] / "data" / "dev_policies" / "aml"
    for case in cases_in(directory, include_held_out=True):
        assert read_gaps(case.gaps)
