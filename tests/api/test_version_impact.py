"""What a new version touches, over HTTP (issue 48): a policy audited against a regulation,
the officer's decisions on two of its rows, then a new version that alters one of those
obligations and leaves the other alone. The impact lists the obligations the version adds,
removes and alters and the one decision it reopens; the audit's review shows that row
reopened with what changed, the other still decided; the impact report exports as XLSX and
DOCX; another organisation sees none of it."""

from __future__ import annotations

import io
from typing import Any

from docx import Document as read_docx
from openpyxl import load_workbook

from regintel.container import Container
from tests.api.conftest import User, ingest, upload
from tests.api.test_audit_export import POLICY, RULES, _document
from tests.api.test_reviews_api import _answer, _audit_turn

RULES_V2 = RULES.replace("for at least six years\nfrom", "for at least seven years\nfrom").replace(
    "1.1.3 The MLRO must report to the Governing Body semi-annually on the operation of the\n"
    "AML systems and controls.\n",
    "1.1.3 A Relevant Person must appoint a deputy to the MLRO.\n").replace(
    "to all Employees at least annually", "to all Employees, at least annually")
KEPT = "A Relevant Person must keep all customer due diligence records"
TRAINING = "A Relevant Person must provide AML training to all Employees at least annually."


async def _decide(user: User, path: str, rows: list[dict[str, Any]], words: str) -> None:
    row = next(r for r in rows if r["obligation"].startswith(words))
    response = await user.client.post(path, json={"obligation_key": row["obligation_key"],
                                                  "decision": "gap", "note": "checked"})
    assert response.status_code == 201, response.text


def _row(review: dict[str, Any], words: str) -> dict[str, Any]:
    return next(r for r in review["rows"] if r["obligation"].startswith(words))


async def test_a_new_version_reopens_the_decisions_on_what_it_altered(
        alice: User, mallory: User, container: Container) -> None:
    rules = await _document(alice, container, RULES, "rules.txt", "regulation")
    policy = await _document(alice, container, POLICY, "policy.txt", "policy")
    conversation = await _audit_turn(alice, [policy, rules])
    path = f"/api/conversations/{conversation}/messages/{await _answer(alice, conversation)}" \
        "/review"
    rows = (await alice.client.get(path)).json()["rows"]
    await _decide(alice, path, rows, KEPT)
    await _decide(alice, path, rows, TRAINING)

    response = await upload(alice, RULES_V2.encode(), "rules-2025.txt", title="rules.txt",
                            doc_type="regulation", version="2025", version_of=rules)
    assert response.status_code == 201, response.text
    new = str((await ingest(container, alice, response.json()["document"]["id"]))["id"])

    response = await alice.client.get(f"/api/documents/{new}/impact")  # from: the one before
    assert response.status_code == 200, response.text
    impact = response.json()
    kinds = {(i["kind"], (i["old"] or {}).get("rule"), (i["new"] or {}).get("rule"))
             for i in impact["obligations"]}
    assert {("altered", "1.1.1", "1.1.1"), ("removed", "1.1.3", None),
            ("added", None, "1.1.3")} <= kinds
    # A comma added: editorial, so the decision on it stands (and carries to the new version).
    assert [i["kind"] for i in impact["obligations"]
            if i["old"] and i["old"]["text"] == TRAINING] == ["editorial"]
    [reopened] = impact["decisions"]
    assert reopened["decision"] == "gap" and reopened["rule"] == "1.1.1"
    assert "seven years, not six" in reopened["impact"]["summary"]

    review = (await alice.client.get(path)).json()
    altered, kept = _row(review, KEPT), _row(review, TRAINING)
    assert altered["reopened"] is not None and "changed it" in altered["reopened"]
    assert "seven years, not six" in altered["reopened"]
    assert kept["reopened"] is None and kept["decision"]["decision"] == "gap"
    assert review["progress"]["reopened"] == 1

    sheet = await alice.client.get(f"/api/documents/{new}/impact/export",
                                   params={"from": rules, "format": "xlsx"})
    assert sheet.status_code == 200, sheet.text
    book = load_workbook(io.BytesIO(sheet.content))
    decisions = list(book["Decisions reopened"].iter_rows(values_only=True))
    assert decisions[1][:3] == ("policy.txt", "1.1.1", "Gap")  # the title, as uploaded
    word = await alice.client.get(f"/api/documents/{new}/impact/export",
                                  params={"format": "docx"})
    assert word.status_code == 200
    headings = [p.text for p in read_docx(io.BytesIO(word.content)).paragraphs
                if p.style is not None and p.style.name.startswith("Heading")]
    assert "Decisions reopened (1)" in headings
    csv = await alice.client.get(f"/api/documents/{new}/impact/export",
                                 params={"format": "csv"})
    assert csv.status_code == 422  # not a format of this report

    # An audit against the new version: the decision on the obligation only edited for form
    # is carried over to its new wording; the altered one is a new duty, undecided.
    later = await _audit_turn(alice, [policy, new])
    review = (await alice.client.get(f"/api/conversations/{later}/messages/"
                                     f"{await _answer(alice, later)}/review")).json()
    carried = _row(review, "A Relevant Person must provide AML training to all Employees,")
    assert carried["decision"]["decision"] == "gap" and carried["reopened"] is None
    assert _row(review, KEPT)["decision"] is None

    # The first version has nothing before it; another organisation has neither.
    assert (await alice.client.get(f"/api/documents/{rules}/impact")).status_code == 400
    for url in (f"/api/documents/{new}/impact", f"/api/documents/{new}/impact/export"):
        assert (await mallory.client.get(url)).status_code == 404
