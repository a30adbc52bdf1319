"""An audit as a compliance team reads it (issue 38): findings by severity with the lower ones
collapsed, the consequence a severity's findings share said once, filters by severity, kind
and regulation in a toolbar; reopened later, it looks the same."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.async_api import Browser, expect

from tests.e2e.conftest import needs_chromium
from tests.e2e.documents import AML_RULES, CONDUCT_RULES, POLICY, make_pdf
from tests.e2e.helpers import ANSWER_TIMEOUT_MS, new_email, open_tab, sign_up, upload

pytestmark = needs_chromium

AML_TITLE = "Audit AML Rules"
CONDUCT_TITLE = "Audit Conduct Rules"
POLICY_TITLE = "Audit Falcon Policy"
SHARED = "non-compliance may lead to"


async def test_audit_findings_are_grouped_filtered_and_said_once(
        browser: Browser, live_server: str, screenshots: Path) -> None:
    tab = await open_tab(browser, live_server, height=900)
    page = tab.page
    await sign_up(tab, name="Ada Audit", organisation="Audit Bank", email=new_email("ada"))
    for name, pages, title, doc_type in (("aml.pdf", AML_RULES, AML_TITLE, "regulation"),
                                         ("cob.pdf", CONDUCT_RULES, CONDUCT_TITLE, "regulation"),
                                         ("policy.pdf", POLICY, POLICY_TITLE, "policy")):
        await upload(tab, filename=name, data=make_pdf(pages, title), mime="application/pdf",
                     title=title, version="2025", doc_type=doc_type)
    await page.get_by_role("tab", name="Chats").click()
    box = page.get_by_role("combobox", name=re.compile("^Message"))
    for query in ("audit", "falcon", "aml", "conduct"):
        await box.press_sequentially(f"@{query}")
        await expect(page.get_by_role("option").first).to_be_visible()
        await box.press("Enter")
    await box.press_sequentially(" against these rules")
    await box.press("Enter")
    answer = page.locator(".msg.assistant").last
    await expect(answer).not_to_have_class(re.compile("streaming"), timeout=ANSWER_TIMEOUT_MS)
    audit = answer.locator(".audit")
    await expect(audit).to_be_visible()

    groups = audit.locator("details.sev-group")
    severities = await groups.evaluate_all("els => els.map(e => e.dataset.severity)")
    assert severities and severities == sorted(
        severities, key=["Critical", "High", "Medium", "Low"].index), severities
    for i, severity in enumerate(severities):
        # Critical and High open; Medium and Low collapsed under their heading.
        opened = await groups.nth(i).evaluate("el => el.open")
        assert opened == (severity in ("Critical", "High")), (severity, opened)
        # A consequence every finding of the severity shares is said once, in its heading.
        said = await groups.nth(i).evaluate(
            f"el => el.textContent.split({SHARED!r}).length - 1")
        assert said <= 1, (severity, said)
    findings = audit.locator(".finding")
    total = await findings.count()
    assert total >= 3

    # Filters in a toolbar: kind and regulation narrow what is shown, and say so.
    toolbar = audit.get_by_role("toolbar", name="Audit findings")
    await expect(toolbar).to_be_visible()
    await toolbar.get_by_label("Regulation").select_option(label=CONDUCT_TITLE)
    visible = audit.locator(".finding:visible")
    for doc in await visible.locator(".finding-doc").all_inner_texts():
        assert doc == CONDUCT_TITLE
    await expect(toolbar.locator(".audit-shown")).to_contain_text("Showing")
    await toolbar.get_by_label("Regulation").select_option(label="All regulations")
    await toolbar.get_by_label("Kind").select_option(label="Conflicts")
    for kind in await visible.locator(".finding-head .chip").all_inner_texts():
        assert kind == "Conflict"
    await toolbar.get_by_label("Kind").select_option(label="Gaps and conflicts")
    await toolbar.get_by_label("Severity").select_option(index=1)
    await expect(audit.locator("details.sev-group:visible")).to_have_count(1)
    await toolbar.get_by_label("Severity").select_option(index=0)
    await page.evaluate("document.querySelector('.audit .audit-head').scrollIntoView()")
    await tab.shot(screenshots, "38-08-audit-by-severity")
    first_time = await answer.inner_text()

    # Reopened: the same view (severity groups, toolbar, badges, cost line).
    await page.reload()
    await page.locator(".chat-item .chat-open").first.click()
    again = page.locator(".msg.assistant").last
    await expect(again.locator(".audit .audit-toolbar")).to_be_visible()
    assert await again.inner_text() == first_time
    tab.assert_clean()
    await tab.context.close()
