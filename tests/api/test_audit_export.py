"""GET /api/conversations/{id}/audit/export: a real audit (offline engine, through /api/chat)
exported as XLSX, CSV and DOCX, each file read back with openpyxl, csv and python-docx; the
conversation of another tenant (or another member) is not found, and so is an audit in a
conversation that ran none. The reports count what the engine proved apart from what it
proposed, list the matrix in review order and end in a sign-off (issue 47)."""

from __future__ import annotations

import csv
import io
import re
from typing import Any

import pytest
from docx import Document
from openpyxl import load_workbook

from regintel.container import Container
from regintel.reports.review_lines import SIGN_OFF_LINE
from regintel.reports.tables import FINDING_COLUMNS, MATRIX_COLUMNS
from tests.api.conftest import User, ingest, sse_events, upload

RULES = """Test Record-Keeping Rules

1. RECORDS

1.1 Retention
1.1.1 A Relevant Person must keep all customer due diligence records for at least six years
from the date on which the business relationship ends.
1.1.2 A Relevant Person must provide AML training to all Employees at least annually.
1.1.3 The MLRO must report to the Governing Body semi-annually on the operation of the
AML systems and controls.
"""
# The matrix's Status values, in review order.
STATUSES = ("finding", "review", "likely met", "not applicable")
HEADLINE = re.compile(r"\d+ findings? proven; \d+ rows? to review")
POLICY = """Kite Brokers Ltd - Records and Training Policy

1. Records. The Firm keeps customer due diligence records for five years from the date the
business relationship ends.

2. Training. All staff complete AML training every two years.

3. Reporting. The MLRO reports to the Board once a year on the AML systems and controls.
"""


async def _document(user: User, container: Container, text: str, name: str,
                    doc_type: str) -> str:
    response = await upload(user, text.encode(), name, title=name, doc_type=doc_type)
    assert response.status_code == 201, response.text
    document = await ingest(container, user, response.json()["document"]["id"])
    assert document["status"] == "ready"
    return str(document["id"])


async def _audit(user: User, container: Container) -> dict[str, Any]:
    """Audit the policy against the rules in one chat turn; the turn's meta event."""
    rules = await _document(user, container, RULES, "rules.txt", "regulation")
    policy = await _document(user, container, POLICY, "policy.txt", "policy")
    response = await user.client.post("/api/chat", json={
        "message": "Audit the policy against the rules", "action": "audit",
        "tagged_doc_ids": [policy, rules]})
    assert response.status_code == 200, response.text
    kind, meta = sse_events(response.text)[-1]
    assert kind == "meta" and meta["audit"] is not None, meta
    assert meta["audit"]["findings"], meta["audit"]
    return dict(meta)


@pytest.fixture
async def audited(alice: User, container: Container) -> dict[str, Any]:
    return await _audit(alice, container)


async def test_xlsx_holds_summary_findings_and_matrix(alice: User,
                                                      audited: dict[str, Any]) -> None:
    thread = audited["thread_id"]
    response = await alice.client.get(f"/api/conversations/{thread}/audit/export",
                                      params={"format": "xlsx"})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith(
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
    assert "attachment" in response.headers["content-disposition"]
    assert response.headers["content-disposition"].endswith('.xlsx"')
    book = load_workbook(io.BytesIO(response.content))
    # "Not applicable" lists the parties left out, when the audit left any out.
    assert book.sheetnames[:3] == ["Summary", "Findings", "Matrix"]
    assert book.sheetnames[3:] in ([], ["Not applicable"])
    rows = list(book["Summary"].iter_rows(values_only=True))
    summary = {row[0]: row[1] for row in rows if row and row[0]}
    # The headline counts rows; it never repeats the chat's label over unproven rows.
    assert HEADLINE.fullmatch(str(summary["Status"])), summary["Status"]
    assert "Overall status" not in summary
    assert str(summary["Engine's reading"]).startswith("Findings (proven): ")
    assert re.fullmatch(r"0 of \d+ reviewed; .*", str(summary["Sign-off"]))
    assert (None, SIGN_OFF_LINE) in rows
    assert summary["Audited"] == "policy.txt"
    findings = list(book["Findings"].iter_rows(values_only=True))
    assert findings[0] == FINDING_COLUMNS
    assert len(findings) - 1 == len(audited["audit"]["findings"])
    # Every quote in the sheet is the finding's own, verbatim.
    quotes = {f["target_quote"] for f in audited["audit"]["findings"]}
    assert {row[5] for row in findings[1:]} == quotes
    severities = [str(row[1]) for row in findings[1:]]
    order = ["Critical", "High", "Medium", "Low"]
    assert severities == sorted(severities, key=order.index)
    matrix = list(book["Matrix"].iter_rows(values_only=True))
    assert matrix[0] == MATRIX_COLUMNS
    assert len(matrix) - 1 >= len(findings) - 1


async def test_csv_is_the_matrix(alice: User, audited: dict[str, Any]) -> None:
    thread = audited["thread_id"]
    response = await alice.client.get(f"/api/conversations/{thread}/audit/export",
                                      params={"format": "csv"})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert tuple(rows[0]) == MATRIX_COLUMNS
    column = {name: MATRIX_COLUMNS.index(name) for name in MATRIX_COLUMNS}
    # The audit's coverage matrix, kept with its turn: every obligation of the rules with its
    # status, the ones the policy meets too - not only the findings.
    by_rule = {r[column["Rule"]]: r for r in rows[1:]}
    assert {"1.1.1", "1.1.2", "1.1.3"} <= set(by_rule), sorted(by_rule)
    # In review order: proven findings, rows to review, likely met, not applicable.
    statuses = [r[column["Status"]] for r in rows[1:]]
    assert set(statuses) <= set(STATUSES)
    assert statuses == sorted(statuses, key=STATUSES.index)
    assert not any(r[column["Decision"]] for r in rows[1:])  # nobody has decided yet
    # Each finding is numbered on its rule's row, and that row quotes the rule verbatim.
    findings = [r for r in rows[1:] if r[column["Finding #"]]]
    assert len(findings) == len(audited["audit"]["findings"])
    assert {r[column["Rule"]] for r in findings} == {
        f["target_clause"] for f in audited["audit"]["findings"]}
    for finding in audited["audit"]["findings"]:
        row = by_rule[finding["target_clause"]]
        assert " ".join(finding["target_quote"].split()) in " ".join(
            row[column["Obligation (verbatim)"]].split())
    assert RULES.count("must") == sum(1 for r in rows[1:] if r[column["Rule"]].startswith("1."))


async def test_docx_has_summary_findings_by_severity_and_matrix(
        alice: User, audited: dict[str, Any]) -> None:
    thread = audited["thread_id"]
    response = await alice.client.get(f"/api/conversations/{thread}/audit/export",
                                      params={"format": "docx"})
    assert response.status_code == 200, response.text
    document = Document(io.BytesIO(response.content))
    headings = [p.text for p in document.paragraphs
                if p.style is not None and str(p.style.name).startswith("Heading")]
    assert "Summary" in headings and "Findings by severity" in headings
    assert "Full matrix" in headings and headings[-1] == "Sign-off"
    severities = {f["severity"] for f in audited["audit"]["findings"]}
    assert any(h.startswith(tuple(severities)) for h in headings)
    text = "\n".join(p.text for p in document.paragraphs)
    for finding in audited["audit"]["findings"]:
        assert f"“{finding['target_quote']}”" in text
    assert re.search(r"\b0 of \d+ reviewed;", text) and SIGN_OFF_LINE in text
    summary, matrix = document.tables[0], document.tables[-1]
    assert summary.rows[0].cells[0].text == "Report"
    assert [c.text for c in matrix.rows[0].cells][:2] == ["Rule", "Obligation (verbatim)"]
    assert len(matrix.rows) - 1 >= len(audited["audit"]["findings"])


async def test_another_tenants_conversation_is_not_found(alice: User, mallory: User,
                                                         audited: dict[str, Any]) -> None:
    path = f"/api/conversations/{audited['thread_id']}/audit/export"
    response = await mallory.client.get(path, params={"format": "xlsx"})
    assert response.status_code == 404, response.text
    assert response.headers["content-type"] == "application/problem+json"
    # ... and alice still has it.
    assert (await alice.client.get(path, params={"format": "csv"})).status_code == 200


async def test_a_conversation_without_an_audit_says_so(alice: User) -> None:
    conversation = (await alice.client.post("/api/conversations", json={"title": "t"})).json()
    response = await alice.client.get(f"/api/conversations/{conversation['id']}/audit/export")
    assert response.status_code == 404
    assert "no audit" in response.json()["title"]


async def test_an_unknown_format_is_refused(alice: User, audited: dict[str, Any]) -> None:
    response = await alice.client.get(
        f"/api/conversations/{audited['thread_id']}/audit/export", params={"format": "pdf"})
    assert response.status_code == 422
