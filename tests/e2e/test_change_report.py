"""What changed in a new version, in the browser (issue 48): a regulation audited against a
policy with the officer's decision on one of its rows, then a second version uploaded from
the Documents tab that turns "six years" into "seven", deletes one rule, adds one and respaces
another. Its card links to the change report, which is navigated by part, filtered to the
substantive changes and shows the redline; its Impact tab shows the altered obligation, the
reopened decision with a link to its review, turns the obligation into a project task, and
exports the impact report, read back with openpyxl. Then the screen on a phone, and a third
version whose report picks the earlier version it is compared with."""

from __future__ import annotations

import asyncio
import io
import json
import re
from pathlib import Path
from typing import Any

from openpyxl import load_workbook
from playwright.async_api import Browser, Page, expect

from tests.e2e.conftest import needs_chromium
from tests.e2e.helpers import (
    READY_TIMEOUT_MS,
    Tab,
    csrf_token,
    new_email,
    open_tab,
    sign_up,
    upload,
)

pytestmark = needs_chromium

RULES_TITLE = "Change Report Rules"
POLICY_TITLE = "Change Report Policy"
PROJECT = "Rule changes 2025"
RULES = """Test Record-Keeping Rules

PART 1—RECORDS

Rule 1.1 Retention.
A Relevant Person must keep all customer due diligence records for at least six years from the date on which the business relationship ends. The records must include the documents obtained to verify the identity of the customer and of any beneficial owner, the business correspondence with the customer, the results of any analysis undertaken, and the records of every transaction carried out in the course of the business relationship, each kept so that it can be retrieved promptly on request of the Regulator.

Rule 1.2 Training.
A Relevant Person must provide AML training to all Employees at least annually.

PART 2—REPORTING

Rule 2.1 Reports to the Governing Body.
The MLRO must report to the Governing Body semi-annually on the operation of the AML systems and controls.

Rule 2.2 Breaches.
A Relevant Person must notify the Regulator of a material breach within 10 days.
"""  # noqa: E501 - one paragraph a line, as a regulation's text is uploaded
RULES_V2 = RULES.replace("six years", "seven years").replace(
    "Rule 2.1 Reports to the Governing Body.\nThe MLRO must report to the Governing Body "
    "semi-annually on the operation of the AML systems and controls.\n\n", "").replace(
    "to all Employees", "to all  Employees") + (
    "\nRule 2.3 Deputy MLRO.\nA Relevant Person must appoint a deputy to the MLRO.\n")
POLICY = """Kite Brokers Ltd - Records and Training Policy

1. Records. The Firm keeps customer due diligence records for five years from the date the business relationship ends.

2. Training. All staff complete AML training every two years.

3. Reporting. The MLRO reports to the Board once a year on the AML systems and controls.
"""  # noqa: E501
KEPT = "A Relevant Person must keep all customer due diligence records"
SHOWN = re.compile(r"^Showing (\d+) of (\d+)$")


def _sse_meta(body: str) -> dict[str, Any]:
    """The last event of a chat turn's stream: its meta (the thread, the audit)."""
    kind, data = "", ""
    for line in body.strip().split("\n\n")[-1].splitlines():
        if line.startswith("event: "):
            kind = line[7:]
        elif line.startswith("data: "):
            data += line[6:]
    assert kind == "meta", body[-400:]
    meta: dict[str, Any] = json.loads(data)
    return meta


async def _document_id(page: Page, title: str, version: str) -> str:
    documents = (await (await page.request.get("/api/documents")).json())["data"]
    return str(next(d["id"] for d in documents
                    if d["title"] == title and d["version"] == version))


async def _audit_and_decide(tab: Tab) -> str:
    """Audits the policy against the first version through the API and decides the
    record-keeping row a gap; the review's address."""
    page = tab.page
    headers = {"X-CSRF-Token": await csrf_token(tab)}
    rules = await _document_id(page, RULES_TITLE, "2024")
    policy = await _document_id(page, POLICY_TITLE, "2024")
    turn = await page.request.post("/api/chat", headers=headers, data={
        "message": "Audit the policy against the rules", "action": "audit",
        "tagged_doc_ids": [policy, rules]}, timeout=120_000)
    assert turn.ok, await turn.text()
    meta = _sse_meta(await turn.text())
    assert meta["audit"] is not None, meta
    thread = meta["thread_id"]
    review = await (await page.request.get(f"/api/conversations/{thread}/review")).json()
    row = next(r for r in review["rows"] if r["obligation"].startswith(KEPT))
    path = f"/api/conversations/{thread}/messages/{review['message_id']}/review"
    decided = await page.request.post(path, headers=headers, data={
        "obligation_key": row["obligation_key"], "decision": "gap",
        "note": "Five years in the policy."})
    assert decided.status == 201, await decided.text()
    return f"/review/{thread}/{review['message_id']}"


async def _shown(page: Page) -> tuple[int, int]:
    text = await page.locator(".cr-shown").inner_text()
    match = SHOWN.match(text)
    assert match, text
    return int(match.group(1)), int(match.group(2))


async def test_the_change_report_of_a_new_version(browser: Browser, live_server: str,
                                                  screenshots: Path) -> None:
    tab = await open_tab(browser, live_server)
    page = tab.page
    await sign_up(tab, name="Cora Change", organisation="Change Bank",
                  email=new_email("cora"))
    for name, text, title, doc_type in (("rules-2024.txt", RULES, RULES_TITLE, "regulation"),
                                        ("policy.txt", POLICY, POLICY_TITLE, "policy")):
        await upload(tab, filename=name, data=text.encode(), mime="text/plain", title=title,
                     version="2024", doc_type=doc_type)
    review_page = await _audit_and_decide(tab)

    # The second version, uploaded from the first one's card.
    await page.get_by_role("button", name=f"Upload a new version of {RULES_TITLE} (2024)").click()
    dialog = page.get_by_role("dialog", name="Upload a new version")
    await dialog.get_by_label("File (PDF, DOCX, HTML, Markdown or text)").set_input_files(
        {"name": "rules-2025.txt", "mimeType": "text/plain", "buffer": RULES_V2.encode()})
    await dialog.get_by_label("New version / year").fill("2025")
    await dialog.get_by_role("button", name="Upload").click()
    await expect(dialog).to_have_count(0)
    new = page.locator(".doc-card").filter(has_text=f"{RULES_TITLE} (2025)")
    await expect(new.locator(".status")).to_have_text("Ready", timeout=READY_TIMEOUT_MS)
    # Only the version with one before it has a change report.
    old = page.locator(".doc-card").filter(has_text=f"{RULES_TITLE} (2024)")
    await expect(old.locator(".doc-changes")).to_have_count(0)
    await new.scroll_into_view_if_needed()
    await tab.shot(screenshots, "48-03-what-changed-link")
    await page.get_by_role("link", name=f"What changed in {RULES_TITLE} (2025)").click()
    await expect(page).to_have_url(re.compile(r"/changes/[0-9a-f-]{36}$"))

    # The header: the two versions and the counts.
    heading = page.get_by_role("heading", level=1)
    await expect(heading).to_have_text(
        f"What changed: {RULES_TITLE} (2024) → {RULES_TITLE} (2025)")
    counts = page.locator(".cr-counts")
    await expect(counts).to_have_text(re.compile(r"^\d+ changes: \d+ substantive, [1-9]\d* "
                                                 r"editorial$"))
    cards = page.locator(".cr-change")
    total = await cards.count()
    assert total >= 4, total
    await expect(page.locator(".cr-shown")).to_have_text(f"{total} changes")
    await tab.shot(screenshots, "48-04-change-report", full_page=True)

    # Navigate by part: the contents narrow the list to Part 1's changes.
    contents = page.get_by_role("navigation", name="Table of contents")
    part = contents.get_by_role("button", name=re.compile(r"^PART 1\b"))
    await part.click()
    await expect(part).to_have_attribute("aria-pressed", "true")
    shown, of = await _shown(page)
    assert 0 < shown < of == total, (shown, of)
    for place in await page.locator(".cr-change:visible .cr-place").all_inner_texts():
        assert place.startswith("PART 1"), place
    await expect(page.locator(".cr-change:visible").filter(has_text="Deputy MLRO")).to_have_count(0)

    # Filter to the substantive changes: the respacing of Rule 1.2 goes, the period stays.
    toolbar = page.get_by_role("toolbar", name="Filter the changes")
    await toolbar.get_by_role("radio", name=re.compile(r"^Substantive")).check()
    visible = page.locator(".cr-change:visible")
    for flag in await visible.evaluate_all("cs => cs.map(c => c.dataset.substantive)"):
        assert flag == "true"
    await expect(visible.filter(has_text="Editorial (spacing)")).to_have_count(0)
    retention = visible.filter(has_text="seven years, not six")
    await expect(retention).to_have_count(1)
    # The redline: "six" struck through, "seven" inserted, as text.
    await expect(retention.locator("del.rl-del")).to_have_text("six")
    await expect(retention.locator("ins.rl-ins")).to_have_text("seven")
    assert await retention.locator(".rl-del").evaluate(
        "e => getComputedStyle(e).textDecorationLine") == "line-through"
    await retention.get_by_role("button", name="Show both versions").click()
    await expect(retention.get_by_role("button", name="Hide both versions")).to_have_attribute(
        "aria-expanded", "true")
    quotes = retention.locator(".cr-both blockquote")
    await expect(quotes.first).to_contain_text("for at least six years")
    await expect(quotes.last).to_contain_text("for at least seven years")
    await tab.shot(screenshots, "48-05-part-substantive-redline", full_page=True)
    # The long unchanged run after the edit is shortened, and can be read whole.
    redline = retention.locator(".redline-text")
    await expect(redline.locator(".rl-gap")).to_have_text("…")
    await expect(redline).not_to_contain_text("request of the Regulator")
    await retention.get_by_role("button", name="Show the whole text").click()
    await expect(redline).to_contain_text("retrieved promptly on request of the Regulator.")
    await expect(redline.locator(".rl-gap")).to_have_count(0)

    # The kind filter, and back to every change from the toolbar's chip.
    await toolbar.get_by_role("radio", name=re.compile(r"^All")).check()
    await toolbar.get_by_role("button", name=re.compile(r"^Show changes in every part")).click()
    await expect(page.locator(".cr-shown")).to_have_text(f"{total} changes")
    await toolbar.get_by_label("Kind").select_option("inserted")
    await expect(page.locator(".cr-change:visible")).to_have_count(1)
    await expect(page.locator(".cr-change:visible")).to_contain_text("Rule 2.3")
    await toolbar.get_by_label("Kind").select_option("")

    # Impact: the altered obligation, before and after, and the decision it reopens.
    await page.get_by_role("tab", name="Impact").click()
    altered = page.get_by_role("region", name="Altered obligations")
    obligation = altered.locator(".cr-ob").filter(has_text=KEPT)
    await expect(obligation).to_have_count(1)
    await expect(obligation.locator("blockquote").first).to_contain_text("six years")
    await expect(obligation.locator("blockquote").last).to_contain_text("seven years")
    await expect(obligation).to_contain_text("seven years, not six")
    await expect(page.get_by_role("region", name="Removed obligations")).to_contain_text(
        "semi-annually")
    decisions = page.get_by_role("region", name="Decisions reopened")
    await expect(decisions.get_by_role("heading")).to_have_text("Decisions reopened (1)")
    reopened = decisions.locator(".cr-decision")
    await expect(reopened).to_contain_text(POLICY_TITLE)
    await expect(reopened.locator(".dc-gap")).to_have_text("Gap")
    await expect(reopened).to_contain_text("Cora Change")
    await expect(reopened.get_by_role("link", name="Open the review")).to_have_attribute(
        "href", review_page)
    assert page.url.endswith("#impact"), page.url

    # "Turn into task" on the altered obligation.
    created = await page.request.post("/api/projects", data={"name": PROJECT},
                                      headers={"X-CSRF-Token": await csrf_token(tab)})
    assert created.status == 201, await created.text()
    await obligation.get_by_role("button", name="Turn into task").click()
    work = obligation.get_by_role("form", name="Turn the finding into work")
    await work.get_by_label("Project").select_option(label=PROJECT)
    await work.get_by_role("button", name="Create").click()
    await expect(obligation.locator(".finding-work-done")).to_contain_text(
        f"Task created in {PROJECT}")
    await tab.shot(screenshots, "48-06-impact", full_page=True)

    # The impact report as XLSX: its "Decisions reopened" sheet names the policy's decision.
    exports = page.get_by_role("group", name="Export the impact report")
    await expect(exports.get_by_role("link", name="Export impact (DOCX)")).to_be_visible()
    async with page.expect_download() as started:
        await exports.get_by_role("link", name="Export impact (XLSX)").click()
    download = await started.value
    assert download.suggested_filename.endswith(".xlsx"), download.suggested_filename
    data = await asyncio.to_thread((await download.path()).read_bytes)
    book = load_workbook(io.BytesIO(data))
    rows = [r for r in book["Decisions reopened"].iter_rows(values_only=True) if any(r)]
    # The report names the policy by its title in the library.
    found = [r for r in rows if str(r[0]) == POLICY_TITLE]
    assert len(found) == 1 and found[0][2] == "Gap", rows
    assert found[0][3] == "Cora Change", found[0]

    # The address is the screen: a reload comes back to the impact; "See the change" goes to
    # the change itself.
    reloaded = await page.reload()
    assert reloaded and reloaded.ok, (
        f"GET {page.url} answered {reloaded.status if reloaded else None}: the server must "
        "serve the shell at /changes/{document_id} (regintel.web.install)")
    await expect(page.get_by_role("tab", name="Impact")).to_have_attribute(
        "aria-selected", "true")
    obligation = page.locator(".cr-ob").filter(has_text=KEPT)
    await obligation.get_by_role("button", name="See the change").click()
    await expect(page.get_by_role("tab", name=re.compile(r"^Changes"))).to_have_attribute(
        "aria-selected", "true")
    await expect(page.locator(".cr-change").filter(has_text="seven years, not six")).to_be_focused()

    # The review of the audit shows the row reopened.
    await page.get_by_role("tab", name="Impact").click()
    await page.get_by_role("link", name="Open the review").click()
    await expect(page).to_have_url(re.compile(re.escape(review_page) + "$"))
    await expect(page.locator(".review-table .dc-reopened")).to_have_count(1)

    # A phone: the contents fold above the list, and still narrow it; nothing runs off the side.
    await page.go_back()
    await expect(page.get_by_role("heading", level=1)).to_contain_text("What changed")
    changes_page = page.url.split("#")[0]
    await page.set_viewport_size({"width": 390, "height": 844})
    await page.goto(changes_page)
    contents = page.locator("details.cr-toc")
    await expect(contents).not_to_have_attribute("open", "")
    await tab.shot(screenshots, "48-07-change-report-phone", full_page=True)
    await contents.locator("summary").click()
    await page.get_by_role("navigation", name="Table of contents").get_by_role(
        "button", name=re.compile(r"^PART 2\b")).click()
    await expect(page.locator(".cr-scope")).to_contain_text("PART 2")
    await expect(page.locator(".cr-toolbar")).to_be_in_viewport()
    wide = await page.evaluate("document.documentElement.scrollWidth")
    assert wide <= 390, wide
    await tab.shot(screenshots, "48-08-part-2-phone")
    await page.get_by_role("tab", name="Impact").click()
    await expect(page.get_by_role("region", name="Decisions reopened")).to_be_visible()
    wide = await page.evaluate("document.documentElement.scrollWidth")
    assert wide <= 390, wide
    await tab.shot(screenshots, "48-09-impact-phone", full_page=True)
    await page.set_viewport_size({"width": 1280, "height": 800})

    # A third version: its report picks which earlier version it is compared with.
    first = await _document_id(page, RULES_TITLE, "2024")
    second = await _document_id(page, RULES_TITLE, "2025")
    third = await page.request.post("/api/documents", headers={
        "X-CSRF-Token": await csrf_token(tab)}, multipart={
        "title": RULES_TITLE, "version": "2026", "doc_type": "regulation", "version_of": second,
        "file": {"name": "rules-2026.txt", "mimeType": "text/plain",
                 "buffer": RULES_V2.replace("within 10 days", "within 5 days").encode()}})
    assert third.status == 201, await third.text()
    latest = (await third.json())["document"]["id"]
    await page.goto("/dashboard")
    await page.get_by_role("tab", name="Documents").click()
    await expect(page.locator(".doc-card").filter(has_text=f"{RULES_TITLE} (2026)").locator(
        ".status")).to_have_text("Ready", timeout=READY_TIMEOUT_MS)
    await page.get_by_role("link", name=f"What changed in {RULES_TITLE} (2026)").click()
    await expect(heading).to_have_text(
        f"What changed: {RULES_TITLE} (2025) → {RULES_TITLE} (2026)")
    await expect(page.locator(".cr-change")).to_have_count(1)
    picker = page.get_by_label("Compared with")
    await picker.select_option(first)
    await expect(page).to_have_url(re.compile(rf"/changes/{latest}\?from={first}$"))
    await expect(heading).to_have_text(
        f"What changed: {RULES_TITLE} (2024) → {RULES_TITLE} (2026)")
    await expect(picker).to_have_value(first)
    assert await page.locator(".cr-change").count() == total + 1  # and the new deadline
    await tab.shot(screenshots, "48-10-earlier-version-picked")

    # The first version has nothing before it, and says so.
    await page.goto(f"/changes/{first}")
    await expect(page.get_by_role("heading", name="No earlier version")).to_be_visible()
    tab.assert_clean()
    await tab.context.close()
