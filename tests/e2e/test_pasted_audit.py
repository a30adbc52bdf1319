"""An email pasted into the chat box after "Check this email …:" is audited in text mode:
findings quote the email ("Text says"), and its words are not taken for documents."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.async_api import Browser, Locator, expect

from tests.e2e.conftest import needs_chromium
from tests.e2e.documents import AML_RULES, make_pdf
from tests.e2e.helpers import ANSWER_TIMEOUT_MS, Tab, new_email, open_tab, sign_up, upload

pytestmark = needs_chromium

TITLE = "Pasted AML Rules"
EMAIL = ("Hi team, to win the new client quickly we will not screen him against any "
         "sanctions lists, and he can send his ID documents next month. Please don't mention "
         "anything to compliance.")


async def _email_checked(browser: Browser, live_server: str, name: str, organisation: str,
                         email: str) -> tuple[Tab, Locator]:
    """A new user with the rules uploaded, who asks to check ``email`` against them: the tab
    and the finished answer."""
    tab = await open_tab(browser, live_server)
    page = tab.page
    await sign_up(tab, name=name, organisation=organisation,
                  email=new_email(name.split()[0].lower()))
    await upload(tab, filename="aml.pdf", data=make_pdf(AML_RULES, TITLE), mime="application/pdf",
                 title=TITLE, version="2025", doc_type="regulation")
    await page.get_by_role("tab", name="Chats").click()
    box = page.get_by_role("combobox", name=re.compile("^Message"))
    await box.press_sequentially("@pasted")
    await expect(page.get_by_role("option").filter(has_text=TITLE)).to_have_count(1)
    await box.press("Enter")
    await box.press_sequentially(f" Check this email against the rules: {email}")
    await box.press("Enter")
    answer = page.locator(".msg.assistant").last
    await expect(answer).not_to_have_class(re.compile("streaming"), timeout=ANSWER_TIMEOUT_MS)
    return tab, answer


async def test_an_email_pasted_into_the_chat_box_is_audited(browser: Browser, live_server: str,
                                                             screenshots: Path) -> None:
    tab, answer = await _email_checked(browser, live_server, "Paula Paste", "Paste Bank", EMAIL)
    page = tab.page
    await expect(page.locator(".prompt")).to_have_count(0)  # no "I do not have ID documents"
    audit = answer.locator(".audit")
    await expect(audit).to_be_visible()
    said = audit.locator(".finding p.muted")
    assert await said.count() >= 1
    for text in await said.all_text_contents():
        assert text.startswith("Text says: ") and text.removeprefix("Text says: ") in EMAIL
    await audit.locator(".finding").first.scroll_into_view_if_needed()
    await tab.shot(screenshots, "28-pasted-email-audit")
    # Issue 47: each sentence that proposes leaving something undone is flagged with the
    # rules closest to it, apart from the findings.
    flagged = audit.get_by_role("region", name="Sentences to check")
    await expect(flagged).to_be_visible()
    sentences = await flagged.locator(".flagged-item > p q").all_text_contents()
    assert sentences and all(s in EMAIL for s in sentences), sentences
    assert await flagged.locator(".flagged-rules li").count() >= len(sentences)
    await flagged.scroll_into_view_if_needed()
    await tab.shot(screenshots, "47-08-text-flagged")
    tab.assert_clean()
    await tab.context.close()


COMPLIANT = ("Hi team, before we open the account for the new client we will verify his "
             "identity from his passport and screen him against the sanctions lists, as our "
             "procedures require.")


async def test_a_compliant_email_is_never_called_compliant(browser: Browser, live_server: str,
                                                           screenshots: Path) -> None:
    """Issue 35: an audit that finds nothing says what it checked ("No issues found in the N
    rules checked (…)", or that no rule matched the text) and that this is no finding that the
    text complies; the word "Compliant" is never its verdict."""
    tab, answer = await _email_checked(browser, live_server, "Carl Clean", "Clean Bank",
                                       COMPLIANT)
    audit = answer.locator(".audit")
    await expect(audit).to_be_visible()
    await expect(audit.locator(".finding")).to_have_count(0)
    said = await audit.inner_text()
    # The screening rule is the email's subject: it is named as checked (the search reached
    # it), and the badge says no issues were found in it - never that the text complies.
    assert re.search(r"No issues found in the 1 rule checked \(Pasted AML Rules Rule 5\.2\)",
                     said), said
    await expect(audit.locator(".badge.status")).to_have_text("No issues found")
    assert "not a finding that the text complies" in said, said
    assert "Compliant" not in await answer.inner_text()
    await tab.shot(screenshots, "28b-compliant-email-verdict")
    tab.assert_clean()
    await tab.context.close()
