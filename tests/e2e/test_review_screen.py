"""The review of an audit (issue 47): from the audit in the chat to a screen listing its rows,
where the officer moves by keyboard, decides a row and sees the progress go up; the decision
survives a reload, is carried into the next audit of the same policy and is in the CSV."""

from __future__ import annotations

import asyncio
import csv
import io
import re
import uuid
from pathlib import Path

from playwright.async_api import Browser, Locator, Page, expect

from tests.e2e.conftest import needs_chromium
from tests.e2e.documents import AML_RULES, POLICY, make_pdf
from tests.e2e.helpers import (
    ANSWER_TIMEOUT_MS,
    csrf_token,
    new_email,
    open_tab,
    sign_up,
    upload,
)

pytestmark = needs_chromium

RULES_TITLE = "Review AML Rules"
POLICY_TITLE = "Review Falcon Policy"
NOTE = "Confirmed with the MLRO: the policy must change."
FRAME = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
PROGRESS = re.compile(r"^(\d+) of (\d+) reviewed · ")
OLD_CLAUSE = "Customer records are kept for three years after the account is closed."
NEW_CLAUSE = "Customer records are kept for six years after the account is closed."


async def _audit(page: Page) -> Locator:
    """Audits the policy against the rules in the chat shown; the finished answer."""
    box = page.get_by_role("combobox", name=re.compile("^Message"))
    for query in ("audit", "falcon", "aml"):  # the Audit action, then the documents
        await box.press_sequentially(f"@{query}")
        await expect(page.get_by_role("option").first).to_be_visible()
        await box.press("Enter")
    await box.press_sequentially(" against these rules")
    await box.press("Enter")
    answer = page.locator(".msg.assistant").last
    await expect(answer).not_to_have_class(re.compile("streaming"), timeout=ANSWER_TIMEOUT_MS)
    await expect(answer.locator(".audit")).to_be_visible()
    return answer


async def _open_review(page: Page, answer: Locator) -> None:
    link = answer.get_by_role("link", name=re.compile(r"^Review all \d+ rows$"))
    await expect(link).to_be_visible()
    await link.click()
    await expect(page).to_have_url(re.compile(r"/review/[0-9a-f-]{36}/[0-9a-f-]{36}$"))
    await expect(page.get_by_role("table", name="Rows to review")).to_be_visible()


async def _progress(page: Page) -> tuple[int, int]:
    text = await page.locator(".review-progress-text").inner_text()
    match = PROGRESS.match(text)
    assert match, text
    return int(match.group(1)), int(match.group(2))


def _row(page: Page, key: str) -> Locator:
    return page.locator(f'.review-table tbody tr[data-key="{key}"]')


async def test_an_audit_is_reviewed_row_by_row(browser: Browser, live_server: str,
                                                screenshots: Path) -> None:
    tab = await open_tab(browser, live_server)
    page = tab.page
    await sign_up(tab, name="Rita Review", organisation="Review Bank", email=new_email("rita"))
    for name, pages, title, doc_type in (("aml.pdf", AML_RULES, RULES_TITLE, "regulation"),
                                         ("policy.pdf", POLICY, POLICY_TITLE, "policy")):
        await upload(tab, filename=name, data=make_pdf(pages, title), mime="application/pdf",
                     title=title, version="2025", doc_type=doc_type)
    await page.get_by_role("tab", name="Chats").click()
    answer = await _audit(page)
    await answer.locator(".audit-head").scroll_into_view_if_needed()
    await tab.shot(screenshots, "47-01-audit-review-link")
    await _open_review(page, answer)

    # The header says what was audited against what, and how far the review is.
    await expect(page.get_by_role("heading", level=1)).to_contain_text(POLICY_TITLE)
    await expect(page.locator(".review-against")).to_contain_text(RULES_TITLE)
    decided, total = await _progress(page)
    assert decided == 0 and total >= 3, (decided, total)
    table = page.get_by_role("table", name="Rows to review")
    rows = table.locator("tbody tr")
    assert await rows.count() >= total
    # The period the policy contradicts is a finding the engine proved; the rest are
    # proposals, and read as such.
    await expect(table.locator(".rv-finding").first).to_be_visible()
    for text in await table.locator(".rv-proposal").all_inner_texts():
        assert text.startswith("Proposed: ") or text == "Unclear", text
    await expect(page.locator(".review-shown")).to_have_text(f"{await rows.count()} rows")

    # A filter narrows the rows and says how many it shows.
    toolbar = page.get_by_role("toolbar", name="Filter the rows")
    await toolbar.get_by_label("Status").select_option("finding")
    await expect(page.locator(".review-shown")).to_contain_text("Showing ")
    for review in await table.locator("tbody tr:visible").evaluate_all(
            "trs => trs.map(tr => tr.dataset.review)"):
        assert review == "finding"
    await toolbar.get_by_label("Status").select_option("")
    await tab.shot(screenshots, "47-02-review-desktop")

    # The keyboard: j/k move the selection (and the focus, visibly); 3 picks Gap.
    first = rows.first
    await expect(first).to_have_attribute("aria-current", "true")
    await first.click()
    await page.keyboard.press("j")
    await expect(rows.nth(1)).to_have_attribute("aria-current", "true")
    await expect(rows.nth(1)).to_be_focused()
    await page.keyboard.press("k")
    await expect(first).to_have_attribute("aria-current", "true")
    await expect(first).to_be_focused()
    key = await first.get_attribute("data-key")
    assert key
    rule = await first.locator(".rv-rule-id").inner_text()
    detail = page.get_by_role("region", name=re.compile(re.escape(rule)))
    await expect(detail.locator(".rv-obligation")).to_be_visible()
    await page.keyboard.press("3")
    await expect(detail.get_by_role("radio", name="Gap")).to_be_checked()
    # Enter in the note is a new line, not a save.
    note = detail.get_by_label("Note (optional)")
    await note.fill(NOTE)
    await note.press("Enter")
    await page.wait_for_timeout(300)
    assert await _progress(page) == (0, total)
    await first.click()  # back on the row: Enter saves
    await expect(first).to_be_focused()
    await page.keyboard.press("Enter")
    await expect(page.locator(".review-progress-text")).to_have_text(
        re.compile(rf"^1 of {total} reviewed"))
    await expect(_row(page, key).locator(".rv-decision")).to_have_text("Gap")
    await expect(detail.locator(".rv-saved")).to_contain_text("Saved")
    await expect(detail.locator(".rv-decided")).to_contain_text("Rita Review")
    await expect(detail.locator(".rv-decided")).to_contain_text(NOTE)
    await tab.shot(screenshots, "47-03-review-decided")
    # A gap becomes a task of a project (the row said as the finding the route takes).
    created = await page.request.post("/api/projects", data={"name": "Record keeping fixes"},
                                      headers={"X-CSRF-Token": await csrf_token(tab)})
    assert created.status == 201, await created.text()
    await detail.get_by_role("button", name="Turn into task").click()
    work = detail.get_by_role("form", name="Turn the finding into work")
    await work.get_by_label("Project").select_option(label="Record keeping fixes")
    await work.get_by_role("button", name="Create").click()
    await expect(detail.locator(".finding-work-done")).to_contain_text(
        "Task created in Record keeping fixes")

    # Reloaded, the decision is still there (the server answers the page's address with the
    # app's shell, as it does for /dashboard).
    reloaded = await page.reload()
    assert reloaded and reloaded.ok, (
        f"GET {page.url} answered {reloaded.status if reloaded else None}: the server must "
        "serve the shell at /review/{conversation_id}/{message_id} (regintel.web.install)")
    await expect(_row(page, key).locator(".rv-decision")).to_have_text("Gap")
    assert await _progress(page) == (1, total)

    # A new chat audits the same policy again: its review carries the decision.
    await page.get_by_role("link", name="Back to the chat").click()
    await expect(page).to_have_url(re.compile(r"/dashboard$"))
    await expect(page.locator(".msg.assistant .audit")).to_be_visible()
    link = page.locator(".msg.assistant .review-link")
    await expect(link).to_have_text(f"Review all {total} rows")
    await expect(link).to_have_attribute("title", f"1 of {total} reviewed")
    await page.get_by_role("button", name="New chat").click()
    again = await _audit(page)
    await _open_review(page, again)
    await expect(_row(page, key).locator(".rv-decision")).to_have_text("Gap")
    assert await _progress(page) == (1, total)
    await _row(page, key).click()
    await expect(page.locator(".review-detail .rv-decided")).to_contain_text(NOTE)

    # A phone: the table is a list of cards; nothing runs off the side.
    await page.set_viewport_size({"width": 390, "height": 844})
    await page.evaluate("window.scrollTo(0, 0)")
    await expect(page.locator(".review-table thead")).to_have_css("position", "absolute")
    wide = await page.evaluate("document.documentElement.scrollWidth")
    assert wide <= 390, wide
    await tab.shot(screenshots, "47-04-review-phone")
    await _row(page, key).click()  # the pane, under the list, is scrolled to
    await expect(page.locator(".review-detail")).to_be_in_viewport()
    await page.evaluate(FRAME)  # painted after the scroll, before the screenshot
    await tab.shot(screenshots, "47-05-review-phone-detail")
    await page.set_viewport_size({"width": 1280, "height": 800})

    # The CSV exported from the screen has the decision, who made it and when.
    exports = page.get_by_role("group", name="Export the review")
    async with page.expect_download() as started:
        await exports.get_by_role("link", name="CSV").click()
    download = await started.value
    path = await download.path()
    text = (await asyncio.to_thread(path.read_bytes)).decode("utf-8-sig")
    lines = list(csv.DictReader(io.StringIO(text)))
    assert lines, text[:200]
    assert list(lines[0])[:7] == ["Rule", "Status", "Proposed", "Score", "Decision",
                                  "Decided by", "Decided at"], list(lines[0])
    decided_lines = [line for line in lines if line["Decision"].strip()]
    assert [(line["Rule"], line["Decision"].lower(), line["Decided by"])
            for line in decided_lines] == [(rule, "gap", "Rita Review")], decided_lines
    assert decided_lines[0]["Decided at"]

    # The conversation's latest audit by its own address; a conversation without one says so.
    match = re.search(r"/review/([0-9a-f-]{36})/", page.url)
    assert match
    await page.goto(f"/review/{match.group(1)}/latest")
    await expect(page).to_have_url(re.compile(rf"/review/{match.group(1)}/[0-9a-f-]{{36}}$"))
    await expect(_row(page, key).locator(".rv-decision")).to_have_text("Gap")
    await page.goto(f"/review/{uuid.uuid4()}/latest")
    await expect(page.get_by_role("heading", name="No review for this audit")).to_be_visible()
    await tab.shot(screenshots, "47-06-review-missing")

    # A new version of the policy, its record-keeping clause rewritten: in its audit only the
    # row whose decision rested on that clause reopens; the gap decided above still stands.
    await page.goto(f"/review/{match.group(1)}/latest")
    review = await (await page.request.get(f"/api/conversations/{match.group(1)}/review")).json()
    kept = next(r for r in review["rows"] if r["rule"] != rule and any(
        OLD_CLAUSE in c["quote"] for c in r["candidates"]))
    headers = {"X-CSRF-Token": await csrf_token(tab)}
    met = await page.request.post(
        f"/api/conversations/{match.group(1)}/messages/{review['message_id']}/review",
        data={"obligation_key": kept["obligation_key"], "decision": "met",
              "clause": OLD_CLAUSE}, headers=headers)
    assert met.status == 201, await met.text()
    documents = (await (await page.request.get("/api/documents")).json())["data"]
    old_policy = next(d for d in documents if d["title"] == POLICY_TITLE)
    gone = await page.request.delete(f"/api/documents/{old_policy['id']}", headers=headers)
    assert gone.status == 204, await gone.text()
    await page.goto("/dashboard")
    await upload(tab, filename="policy-v2.pdf", data=make_pdf(
        (POLICY[0].replace(OLD_CLAUSE, NEW_CLAUSE),), POLICY_TITLE), mime="application/pdf",
        title=POLICY_TITLE, version="2026", doc_type="policy")
    await page.get_by_role("tab", name="Chats").click()
    await page.get_by_role("button", name="New chat").click()
    await _open_review(page, await _audit(page))
    await expect(_row(page, key).locator(".rv-decision")).to_have_text("Gap")
    reopened = _row(page, kept["obligation_key"])
    await expect(reopened).to_contain_text("Reopened")
    await reopened.click()
    await expect(page.locator(".review-detail")).to_contain_text("no longer in the policy")
    decided_now, _ = await _progress(page)
    assert decided_now == 1  # the gap stands; the met decision reopened
    await tab.shot(screenshots, "47-07-review-reopened")
    tab.assert_clean()
    await tab.context.close()
